import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';
import { AUDIT_TARGET_TYPES } from '../../http/operation.js';

const UnixSeconds = Type.Integer({ minimum: 0, maximum: 99_999_999_999, description: 'Unix seconds' });

export const AuditListBody = Type.Object({
  from: Type.Optional(UnixSeconds),
  to: Type.Optional(UnixSeconds),
  operation: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The path as registered, e.g. `Agent/create`, `Directory/setDnc`' })),
  targetType: Type.Optional(Type.Union(AUDIT_TARGET_TYPES.map((t) => Type.Literal(t)))),
  targetId: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Number()])),
  principalId: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Number()], { description: 'The userId of the one who made the change' })),
  cursor: Type.Optional(Type.String({ maxLength: 32, description: 'nextCursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'default 50' })),
});

export const AuditRecordSchema = Type.Object({
  id: Type.Integer(),
  at: Type.Integer({ description: 'Unix seconds' }),
  principal: Type.Object({ kind: Type.String(), id: Type.String(), name: Type.String() }),
  credential: Type.String({ description: '"session" or "token" (login protection records: "none")' }),
  ip: Type.String(),
  operation: Type.String(),
  target: Type.Object({ type: Type.String(), id: Type.Union([Type.String(), Type.Null()]) }),
  changes: Type.Record(Type.String(), Type.Array(Type.Unknown(), { minItems: 2, maxItems: 2 }), {
    description: 'Only the fields that changed: `[before, after]`; before is null on a create; secrets are "[redacted]"',
  }),
});

export const AuditListResponse = SuccessSchema({
  data: Type.Array(AuditRecordSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
