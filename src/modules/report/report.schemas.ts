import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';

const When = Type.Union([Type.Number(), Type.String()], {
  description: 'Unix seconds, or MM-DD-YYYY[ HH:mm[:ss]] (also with / or spaces) in the account time zone; inclusive',
});
const Format = Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'csv: the rows as text/csv (RFC 4180)' }));
const BusinessHours = Type.Optional(
  Type.Object(
    {
      start: Type.String({ description: 'HH:MM local, on a quarter hour; included', examples: ['09:00'] }),
      end: Type.String({ description: 'HH:MM local, on a quarter hour; excluded', examples: ['18:00'] }),
      weekDays: Type.Optional(Type.Array(Type.String(), { description: 'MON … SUN; default MON–FRI' })),
    },
    { description: 'Keeps only calls queued, and agent time, inside these hours' },
  ),
);
const Id = Type.Integer({ minimum: 0 });
const Num = Type.Union([Type.Number(), Type.Null()]);

export const QueueReportBody = Type.Object({
  from: When,
  to: When,
  groupId: Type.Optional(Id),
  interval: Type.Union([Type.Literal('15m'), Type.Literal('hour'), Type.Literal('day'), Type.Literal('week'), Type.Literal('month'), Type.Literal('total')]),
  businessHours: BusinessHours,
  slThresholds: Type.Optional(Type.Array(Type.Integer({ minimum: 0, maximum: 3600 }), { description: 'Seconds; default [20]' })),
  shortAbandon: Type.Optional(Type.Integer({ minimum: 0, maximum: 3600, description: 'Seconds; default 5' })),
  format: Format,
});

export const AgentReportBody = Type.Object({
  from: When,
  to: When,
  agentId: Type.Optional(Id),
  groupId: Type.Optional(Id),
  interval: QueueReportBody.properties.interval,
  businessHours: BusinessHours,
  format: Format,
});

export const AbandonedBody = Type.Object({
  from: When,
  to: When,
  groupId: Type.Optional(Id),
  did: Type.Optional(Type.String()),
  callbackWithinHours: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 744, description: 'Default 24' })),
  shortAbandon: Type.Optional(Type.Integer({ minimum: 0, maximum: 3600, description: 'Seconds; default 5: shorter abandons are not listed' })),
  cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Default 100' })),
  format: Format,
});

const Span = { start: Type.Integer({ description: 'Unix seconds' }), end: Type.Integer({ description: 'Unix seconds, exclusive' }) };
const PerThreshold = (v: typeof Num | ReturnType<typeof Type.Integer>) => Type.Record(Type.String(), v, { description: 'Keyed by threshold (seconds)' });

export const QueueRow = Type.Object({
  groupId: Type.Integer(),
  ...Span,
  offered: Type.Integer(),
  answered: Type.Integer(),
  abandoned: Type.Integer(),
  shortAbandoned: Type.Integer(),
  answeredWithin: PerThreshold(Type.Integer()),
  serviceLevel: PerThreshold(Num),
  abandonRate: Num,
  asa: Num,
  maxWait: Num,
  avgAbandonWait: Num,
  aht: Num,
  avgTalk: Num,
  avgHold: Num,
  avgWrap: Num,
  takenOver: Type.Integer(),
  retries: Type.Integer(),
});

export const AgentRow = Type.Object({
  agentId: Type.Integer(),
  ...Span,
  loginTime: Type.Number(),
  availableTime: Type.Number(),
  talkTime: Type.Number(),
  holdTime: Type.Number(),
  wrapTime: Type.Number(),
  breakTime: Type.Number(),
  breaks: Type.Record(Type.String(), Type.Number(), { description: 'Seconds per break reason (every reason of the answer)' }),
  offered: Type.Integer(),
  answered: Type.Integer(),
  missed: Type.Integer(),
  aht: Num,
  occupancy: Num,
});

export const AbandonedRow = Type.Object({
  callId: Type.String(),
  caller: Type.Union([Type.String(), Type.Null()]),
  groupId: Type.Union([Type.Integer(), Type.Null()]),
  did: Type.Union([Type.String(), Type.Null()]),
  queuedAt: Type.Number(),
  waited: Type.Number(),
  calledBack: Type.Union([Type.Object({ callId: Type.String(), at: Type.Number(), answered: Type.Boolean() }), Type.Null()]),
});

export const QueueReportResponse = SuccessSchema({ data: Type.Array(QueueRow) });
export const AgentReportResponse = SuccessSchema({ data: Type.Array(AgentRow) });
export const AbandonedResponse = SuccessSchema({ data: Type.Array(AbandonedRow), nextCursor: Type.Union([Type.String(), Type.Null()]) });
