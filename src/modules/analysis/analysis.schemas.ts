import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';

const FilterObject = Type.Object({
  key: Type.String({ description: 'date | agentId | groupId | did | campaignId | direction' }),
  condi: Type.String({ description: 'range (date); eq | ne | in (the others)' }),
  val: Type.Union([Type.String(), Type.Number(), Type.Array(Type.Union([Type.String(), Type.Number()]))], {
    description:
      'date: "from,to" (MM-DD-YYYY HH:mm:ss, MM/DD/YYYY HH:mm:ss, MM DD YYYY HH:mm:ss or Unix seconds, in the account time zone); in: array or comma string',
  }),
});

const CounterList = Type.Union([Type.Array(Type.String()), Type.String()], {
  description: 'Counter codes (array or comma string); default all. TH = TC.',
});

export const HitsBody = Type.Object({
  filter: Type.Optional(Type.Array(FilterObject, { maxItems: 50 })),
  extra: Type.Optional(Type.Array(FilterObject, { maxItems: 50, description: 'Further filter objects, ANDed with filter' })),
  breakDown: Type.Optional(Type.String({ description: 'agentId (default) | groupId | did | campaignId' })),
  disPlay: Type.Optional(Type.String({ description: 'date (default) | hour | month | total, in the account time zone' })),
  multi: Type.Optional(
    Type.Union([Type.Boolean(), Type.Number(), Type.String()], {
      description: 'true: key → bucket → counters; false (default): key → counters over the range',
    }),
  ),
  fields: Type.Optional(CounterList),
  fileds: Type.Optional(CounterList),
});

/**
 * `data`: per breakdown key, counters (multi false) or bucket label →
 * counters (multi true); a counter is a number or null (averages). Declared
 * loosely on purpose: answers run to megabytes (a month by agent and day) and
 * a nested schema makes the serializer validate every value (~10× slower).
 */
export const HitsResponse = SuccessSchema({
  data: Type.Record(Type.String(), Type.Unknown(), {
    description: 'Per breakdown key: {counter: value} (multi false) or {bucket: {counter: value}} (multi true); see docs/api/analysis.md',
  }),
});
