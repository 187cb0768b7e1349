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
  description:
    'Counter codes (array or comma string), case-insensitive, each answered once (its first spelling); at most 32 listed (1001 beyond); default all. TH = TC.',
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

const count = (description: string) => Type.Optional(Type.Integer({ minimum: 0, description }));
const average = (description: string) => Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { description }));

/**
 * The counters of one key (and bucket): those asked for in `fields`, every
 * one by default (docs/metrics.md has the exact definitions). A counter is
 * answered under the name it was asked by: `TH` (= `TC`), or another
 * spelling, since codes match case-insensitively (`tc`) — those are the
 * additional properties.
 */
export const HitCounters = Type.Object(
  {
    TC: count('Hits (offers to an agent) in the key'),
    TH: count('Total hits: TC under the name it was asked by'),
    AC: count('Hits answered'),
    MC: count('Hits not answered (TC = AC + MC)'),
    UC: count('Calls in the key (at least one hit there)'),
    CA: count('Calls with an answered hit in the key'),
    PM: count('Calls without an answered hit in the key, answered elsewhere'),
    CM: count('Calls without an answered hit in the key, never answered (UC = CA + PM + CM)'),
    FR_UC: count('UC over the calls that are retries'),
    FR_CA: count('CA over the calls that are retries'),
    FR_PM: count('PM over the calls that are retries'),
    FR_CM: count('CM over the calls that are retries'),
    FR_CAN_FR_PM_N: count('Calls never answered that an answered call retries'),
    GH_UC: count("Ghost calls: CA calls whose talk time is at most the account's ghostThresholdSecs"),
    avgRingTime: average('Ring seconds of the hits ÷ TC, 2 decimals; null when TC is 0'),
    avgHoldTime: average('Hold seconds of the CA calls ÷ CA, 2 decimals; null when CA is 0'),
  },
  {
    additionalProperties: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
      description: 'A counter asked for in another spelling (codes match case-insensitively), under that spelling',
    }),
  },
);

/**
 * `data`: per breakdown key, its counters (multi false) or bucket label →
 * counters (multi true). The answer is written as bytes (wire/hits-json.ts),
 * never through a serializer; tests check every answer against this schema.
 */
export const HitsResponse = SuccessSchema({
  data: Type.Record(
    Type.String({ description: 'Breakdown key: agent id, group id, DID or campaign' }),
    Type.Union([
      HitCounters,
      Type.Record(Type.String({ description: 'Bucket: YYYY-MM-DD (date), YYYY-MM-DD HH:00 (hour), YYYY-MM (month) or total' }), HitCounters, {
        description: 'multi true: bucket label → counters (buckets without hits are left out)',
      }),
    ]),
    { description: 'Per breakdown key: its counters (multi false), or bucket label → counters (multi true); see docs/api/analysis.md' },
  ),
});
