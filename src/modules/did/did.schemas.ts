import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';

const Did = Type.Union([Type.String({ maxLength: 64 }), Type.Integer({ minimum: 0 })], {
  'x-code': 1516,
  description: 'The number, as string or number; every non-digit is removed (3 to 15 digits remain)',
});

export const CreateDidBody = Type.Object({ did: Did, name: Type.Optional(Type.String({ maxLength: 100 })) });
export const DeleteDidBody = Type.Object({ did: Did });
export const ListDidsBody = Type.Object({});

export const DidResponse = SuccessSchema({ message: Type.String(), data: Type.Object({ did: Type.String() }) });
export const ListDidsResponse = SuccessSchema({
  data: Type.Array(Type.Object({ did: Type.String(), name: Type.String(), create_date: Type.Integer({ description: 'Unix seconds' }) })),
});
