import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';
import { IdSchema } from '../../http/ids.js';

export const DecideBody = Type.Object({
  caller: Type.Union([Type.String({ maxLength: 64 }), Type.Integer({ minimum: 0 })], {
    'x-code': 1005,
    description: 'The calling number (string or number); every non-digit is removed, 6 to 15 digits must remain (else 1005)',
  }),
  did: Type.Union([Type.String({ maxLength: 64 }), Type.Integer({ minimum: 0 })], {
    'x-code': 1516,
    description: "The dialled number: one of the account's DIDs (else 1516)",
  }),
  groupId: Type.Optional(IdSchema({ description: 'The group the call is for: narrows cli_group sticky assignments (unknown group: 1006)' })),
});

export const DecideResponse = SuccessSchema({
  data: Type.Object(
    {
      blocked: Type.Boolean({ description: 'true: refuse the call' }),
      reason: Type.Optional(Type.Union([Type.Literal('contact'), Type.Literal('did')], { description: 'Why it is blocked; absent when not blocked' })),
      dnc: Type.Integer({ description: 'Current DNC status: 0 not listed, -1 permanently, else the Unix time it ends' }),
      stickyAgentId: Type.Optional(Type.Integer({ description: 'Most specific active sticky agent who is logged in and not on break' })),
      contact: Type.Optional(Type.String({ description: 'The normalised caller number, present when the caller has a directory entry' })),
    },
    { additionalProperties: false },
  ),
});
