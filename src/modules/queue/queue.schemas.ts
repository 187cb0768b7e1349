import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';
import { IdSchema } from '../../http/ids.js';

const Window = Type.Optional(Type.Integer({ minimum: 30, maximum: 86_400, description: 'Trailing window in seconds (default 300)' }));

export const CountBody = Type.Object({ window: Window });

export const ListBody = Type.Object({
  window: Window,
  filter: Type.Optional(
    Type.Array(
      Type.Object({
        key: Type.String({ description: 'callId, caller, did, groupId, campaignId, direction, state, agentId, ringingAgentId, wait, queuedAt, onHold' }),
        op: Type.String({ description: 'gte, lte, eq, ne, in' }),
        val: Type.Unknown(),
      }),
      { maxItems: 20, 'x-code': 1502 },
    ),
  ),
  page: Type.Optional(Type.Integer({ minimum: 0, description: '0 is the first page' })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'Entries per page (default 20)' })),
  Modules: Type.Optional(Type.Array(Type.String({ description: 'queueDuration, summary, agent, calls' }), { maxItems: 4 })),
  summarytype: Type.Optional(Type.String({ description: 'all (default), pending, process, assigned: which live calls `calls` lists' })),
});

export const TakeoverBody = Type.Object({
  callId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  callernumber: Type.Optional(
    Type.Union([Type.String({ maxLength: 64 }), Type.Number()], { description: 'Caller number (any formatting; digits are compared)' }),
  ),
  agentid: Type.Optional(IdSchema({ description: 'The agent who takes the call over; default the calling agent' })),
});

const Counters = {
  add: Type.Integer(),
  drop: Type.Integer(),
  con: Type.Integer(),
  pen: Type.Integer(),
  process: Type.Integer(),
  ass: Type.Integer(),
};
const Dim = (key: ReturnType<typeof Type.Integer> | ReturnType<typeof Type.String>) => Type.Array(Type.Object({ key, ...Counters }));

export const LiveCallSchema = Type.Object({
  callId: Type.String(),
  state: Type.String({ description: 'queued, ringing, connected' }),
  caller: Type.String(),
  did: Type.String(),
  groupId: Type.Union([Type.Integer(), Type.Null()]),
  campaignId: Type.String(),
  direction: Type.String(),
  agentId: Type.Union([Type.Integer(), Type.Null()]),
  ringingAgentId: Type.Union([Type.Integer(), Type.Null()]),
  onHold: Type.Boolean(),
  queuedAt: Type.Number(),
  answeredAt: Type.Union([Type.Number(), Type.Null()]),
  wait: Type.Number({ description: 'Seconds waited so far (until answered)' }),
});

const QDura = Type.Array(Type.Object({ time: Type.Integer(), total: Type.Integer(), drop: Type.Integer(), con: Type.Integer() }));
const Chart = Type.Object({
  time: Type.Array(Type.Integer()),
  total: Type.Array(Type.Integer()),
  drop: Type.Array(Type.Integer()),
  con: Type.Array(Type.Integer()),
});

export const CountResponse = SuccessSchema({
  lstSync: Type.String({ description: 'Sequence number of the last applied event' }),
  window: Type.Integer(),
  chart: Chart,
  data: Type.Object({
    calls: Type.Array(LiveCallSchema),
    count: Type.Integer(),
    avC: Type.Number(),
    avR: Type.Number(),
    stA: Type.Integer(),
    st1: Type.Number(),
    qDura: QDura,
    ag: Dim(Type.Integer()),
    campId: Type.Array(
      Type.Object({
        key: Type.String({ description: 'Campaign id' }),
        add: Type.Integer({ description: 'Dialled in the window' }),
        drop: Type.Integer({ description: 'Of those, abandoned' }),
        con: Type.Integer({ description: 'Of those, connected to an agent' }),
        pen: Type.Integer({ description: 'Contacts dialable now' }),
        process: Type.Integer({ description: 'Calls in progress now' }),
      }),
      { description: 'Per campaign (PRODUCT.md §13): running or paused, or with a dial in the window or a call in progress' },
    ),
    st: Dim(Type.String()),
    grp: Dim(Type.Integer()),
    user: Dim(Type.Integer()),
    did: Dim(Type.String()),
  }),
});

export const ListResponse = SuccessSchema({
  lstSync: Type.String(),
  window: Type.Integer(),
  chart: Chart,
  data: Type.Object({
    onB: Type.Integer({ description: 'agents on break' }),
    onC: Type.Integer({ description: 'agents on a call' }),
    web: Type.Integer({ description: 'agents logged in on Web' }),
    total: Type.Integer({ description: 'live calls matching filter and summarytype' }),
    page: Type.Integer(),
    size: Type.Integer(),
    calls: Type.Optional(Type.Array(LiveCallSchema)),
    queueDuration: Type.Optional(QDura),
    summary: Type.Optional(
      Type.Object({ type: Type.String(), ...Counters, count: Type.Integer(), avC: Type.Number(), avR: Type.Number(), stA: Type.Integer(), st1: Type.Number() }),
    ),
    agent: Type.Optional(
      Type.Array(
        Type.Object({
          agentId: Type.Integer(),
          state: Type.String(),
          loginType: Type.String(),
          callId: Type.String(),
          ringingCallId: Type.String(),
          add: Type.Integer(),
          drop: Type.Integer(),
          con: Type.Integer(),
        }),
      ),
    ),
  }),
});

export const TakeoverResponse = SuccessSchema({
  message: Type.String(),
  data: Type.Object({ callId: Type.String(), from: Type.Union([Type.Integer(), Type.Null()]), to: Type.Integer() }),
});
