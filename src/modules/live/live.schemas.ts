import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';

const Hms = Type.Array(Type.String(), { minItems: 3, maxItems: 3, description: '[hours, minutes, seconds] as zero-padded strings' });

export const LiveBody = Type.Object({
  groupid: Type.Optional(
    Type.Union([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.String({ pattern: '^[0-9]{0,15}$' })], {
      'x-code': 1006,
      description:
        "Group filter; default: the account's defaultGroupId (55 for a new account), all agents when that group does not exist or the setting is null",
    }),
  ),
  status: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('login')], { description: 'login: only logged-in agents' })),
  A: Type.Optional(
    Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal('0'), Type.Literal('1')], { description: '1 adds `ex` (extra data) to each element' }),
  ),
  filter: Type.Optional(
    Type.Array(
      Type.Object({
        key: Type.String({ description: 'state, agentId, loginType, sip_status, name' }),
        op: Type.Optional(Type.String({ description: 'eq (default), ne, in; like for name' })),
        val: Type.Unknown(),
      }),
      { maxItems: 20, 'x-code': 1502 },
    ),
  ),
});

const LiveCall = Type.Object({
  callId: Type.String(),
  state: Type.String(),
  caller: Type.String(),
  did: Type.String(),
  groupId: Type.Union([Type.Integer(), Type.Null()]),
  direction: Type.String(),
  onHold: Type.Boolean(),
  duration: Hms,
});

const Element = Type.Object(
  {
    I: Type.String({ description: 'Agent id' }),
    nm: Type.String(),
    avT: Hms,
    avD: Type.Number({ description: 'Unix seconds since when the agent is available; 0 when not available' }),
    liC: Type.Union([LiveCall, Type.Object({}, { additionalProperties: false })]),
    l: Type.Union([Type.Object({ type: Type.String(), duration: Hms }), Type.Literal('No')]),
    ml: Type.Union([Type.Literal('Yes'), Type.Literal('No')]),
    IsOcc: Type.Integer(),
    mic_perm: Type.Integer(),
    sip_status: Type.String(),
    tt: Type.Number(),
    tC: Type.Integer(),
    ataT: Hms,
    br: Type.Union([Type.Object({ reason: Type.String(), duration: Hms }), Type.Object({}, { additionalProperties: false })]),
    ex: Type.Optional(
      Type.Object({
        state: Type.String(),
        email: Type.String(),
        phone: Type.String(),
        loginAt: Type.Number(),
        wrapup: Type.Union([Type.Object({ duration: Hms }), Type.Object({}, { additionalProperties: false })]),
        availableSecs: Type.Number(),
        ringingCallId: Type.String(),
        callId: Type.String(),
      }),
    ),
  },
  { additionalProperties: false },
);

export const LiveResponse = SuccessSchema({
  message: Type.Object({
    pr: Type.Array(Element),
    oCA: Type.Integer({ description: 'agents on call' }),
    oBA: Type.Integer({ description: 'agents on break' }),
    lA: Type.Integer({ description: 'logged-in agents' }),
    Dia: Type.Integer({ description: 'agents in after-call work' }),
    Ring: Type.Integer({ description: 'agents with a ringing call' }),
  }),
});
