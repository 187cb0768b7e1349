import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';

const Number_ = Type.Union([Type.String({ maxLength: 64 }), Type.Number()], {
  description: 'The number, in any format (`+91 98111 00042`): its 6 to 15 digits are what is looked for',
});

export const NumberBody = Type.Object({ number: Number_ });

const Count = Type.Integer({ minimum: 0 });
export const EraseResponse = SuccessSchema({
  data: Type.Object(
    { contact: Count, dnc: Count, sticky: Count, blacklist: Count, calls: Count, recordings: Count },
    {
      description:
        'What was found: the directory entry (0 or 1), DNC (0 or 1), sticky settings and blacklisted DIDs removed; the calls whose number was ' +
        'replaced by `erased-<hash>`; the recordings deleted. All 0 when nothing was stored.',
    },
  ),
});

const Loose = Type.Object({}, { additionalProperties: true });
export const ExportResponse = SuccessSchema({
  data: Type.Object({
    contact: Type.Union([Loose, Type.Null()], { description: 'The directory entry, every field, or null' }),
    dnc: Type.Union([Type.Object({ dnc: Type.Number(), updatedAt: Type.Number() }), Type.Null()]),
    sticky: Type.Array(
      Type.Object({
        scope: Type.String(),
        cli: Type.String(),
        groupId: Type.Number(),
        agentId: Type.Number(),
        expiry: Type.Number(),
        createdAt: Type.Number(),
      }),
    ),
    blacklist: Type.Array(Type.String(), { description: 'DIDs the number is blocked on' }),
    calls: Type.Array(
      Type.Object(
        {
          kind: Type.Union([Type.Literal('finished'), Type.Literal('live'), Type.Literal('originated'), Type.Literal('campaign')]),
          callId: Type.String(),
          recordings: Type.Array(Type.Object({ path: Type.String(), at: Type.Number() })),
        },
        { additionalProperties: true, description: 'The stored call row (camelCase columns) and its recordings' },
      ),
    ),
  }),
});
