import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';
import { IdSchema } from '../../http/ids.js';

/** switch/config and switch/state take nothing but the credentials. */
export const EmptyBody = Type.Object({});

export const ConfigResponse = SuccessSchema({
  data: Type.Object(
    {
      groups: Type.Array(Type.Object({ groupId: Type.Integer(), name: Type.String() }, { additionalProperties: false }), {
        description: 'Every group: a switch queue of the same name is that group',
      }),
      agents: Type.Array(
        Type.Object(
          {
            agentId: Type.Integer(),
            name: Type.String(),
            dest_type: Type.String({ description: 'SIP or MOBILE (as the agent record holds it)' }),
            dest_value: Type.String({ description: 'The SIP destination, e.g. `sip:5001@pbx.example.com`: a queue member with extension 5001 is this agent' }),
            phone: Type.String(),
          },
          { additionalProperties: false },
        ),
        { description: 'Every agent (deleted ones excluded) with its destination' },
      ),
      dids: Type.Array(Type.String(), { description: "The account's DIDs (digits)" }),
    },
    { additionalProperties: false },
  ),
});

export const StateResponse = SuccessSchema({
  data: Type.Object(
    {
      lstSync: Type.Integer({ description: 'The sequence number of the state read (as the stream numbers it)' }),
      calls: Type.Array(
        Type.Object(
          {
            callId: Type.String(),
            state: Type.Union([Type.Literal('queued'), Type.Literal('ringing'), Type.Literal('connected')]),
            groupId: Type.Union([Type.Integer(), Type.Null()]),
            agentId: Type.Union([Type.Integer(), Type.Null()], { description: 'The connected agent' }),
            ringingAgentId: Type.Union([Type.Integer(), Type.Null()]),
          },
          { additionalProperties: false },
        ),
        { description: 'Every live call (not ended)' },
      ),
      agents: Type.Array(
        Type.Object(
          { agentId: Type.Integer(), loggedIn: Type.Boolean(), breakReason: Type.Union([Type.String(), Type.Null()]) },
          { additionalProperties: false },
        ),
        { description: 'Every agent with live state' },
      ),
    },
    { additionalProperties: false },
  ),
});

const Number64 = (code: number, description: string) =>
  Type.Union([Type.String({ maxLength: 64 }), Type.Integer({ minimum: 0 })], { 'x-code': code, description });

export const OriginateBody = Type.Object({
  agentId: IdSchema({ code: 1509, description: 'The agent who makes the call: rung first (their SIP extension, or their phone for a MOBILE agent)' }),
  customer: Number64(1005, 'The number to call once the agent answers: 6 to 15 digits remain after every non-digit is removed (else 1005)'),
  did: Type.Optional(Number64(1516, "The DID shown to the customer as caller id: one of the account's DIDs (else 1516)")),
  campaignId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'The campaign the call is for (reports and analysis by campaign)' })),
});

export const OriginateResponse = SuccessSchema({
  data: Type.Object(
    { callId: Type.String({ description: 'The id the switch reports the call under (`ctc-…`); its report says cType "CTC"' }) },
    { additionalProperties: false },
  ),
});
