import { Type, type TSchema } from '@sinclair/typebox';
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

export const SetStateBody = Type.Object({
  agentId: Type.Optional(
    IdSchema({ code: 1509, description: "The agent whose state changes; absent: the calling agent (another agent's needs agent.manage)" }),
  ),
  state: Type.Union([Type.Literal('ready'), Type.Literal('break'), Type.Literal('logged_out')], {
    description: 'ready: in its queues and taking calls; break: in its queues, paused; logged_out: out of its queues',
  }),
  reason: Type.Optional(
    Type.String({ minLength: 1, maxLength: 40, description: "With break: one of the account's breakReasons (default the first); else 1000" }),
  ),
});

export const SetStateResponse = SuccessSchema({
  data: Type.Object({ seq: Type.Integer({ description: 'The sequence number of the `agent.state` command on the stream' }) }, { additionalProperties: false }),
});

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** The stream's `agent` message (docs/events.md §3). */
export const AgentLiveMessage = Type.Object(
  {
    agentId: Type.Integer(),
    state: Type.Union(['offline', 'available', 'break', 'wrapup', 'ringing', 'oncall'].map((s) => Type.Literal(s))),
    loggedIn: Type.Boolean(),
    loginType: Nullable(Type.String()),
    sipStatus: Type.String(),
    breakReason: Nullable(Type.String()),
    callId: Nullable(Type.String()),
    ringingCallId: Nullable(Type.String()),
    since: Nullable(Type.Number()),
    seq: Type.Integer(),
  },
  { additionalProperties: false },
);

export const DeskResponse = SuccessSchema({
  data: Type.Object(
    {
      lstSync: Type.Integer({ description: 'The sequence the state was read at: open the stream with `lastEventId` = this to follow it' }),
      agentId: Type.Integer(),
      name: Type.String(),
      groups: Type.Array(Type.Object({ groupId: Type.Integer(), name: Type.String() }, { additionalProperties: false })),
      breakReasons: Type.Array(Type.String(), { description: "The account's break reasons (account/updateSettings)" }),
      state: Nullable(AgentLiveMessage),
    },
    { additionalProperties: false },
  ),
});
