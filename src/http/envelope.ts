import { Type, type TSchema } from '@sinclair/typebox';

export interface ErrorEnvelope {
  status: 'error';
  code: number;
  message: string;
}

export function errorEnvelope(code: number, message: string): ErrorEnvelope {
  return { status: 'error', code, message };
}

/** `{status: "success", code: 200, …fields}`: the success envelope of every operation. */
export function successEnvelope<T extends object>(fields: T): { status: 'success'; code: 200 } & T {
  return { status: 'success', code: 200, ...fields };
}

export const ErrorEnvelopeSchema = Type.Object(
  {
    status: Type.Literal('error'),
    code: Type.Integer({ description: 'Error code from the catalogue' }),
    message: Type.String(),
  },
  { $id: 'ErrorEnvelope', title: 'Error envelope' },
);

/** A success body schema: the envelope's status and code plus `fields`. */
export function SuccessSchema<P extends Record<string, TSchema>>(fields: P, description?: string) {
  return Type.Object({ status: Type.Literal('success'), code: Type.Literal(200), ...fields }, { additionalProperties: false, description });
}
