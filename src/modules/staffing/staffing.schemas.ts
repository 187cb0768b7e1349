import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';

const Percent = (description: string, max: { maximum: number } | { exclusiveMaximum: number }) => Type.Number({ minimum: 0, ...max, description });

export const Target = Type.Object(
  {
    serviceLevel: Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 100, description: 'Percent of all arriving calls to answer within `seconds`' }),
    seconds: Type.Number({ minimum: 0, maximum: 3600, description: 'The service-level threshold, seconds (answered with wait ≤ seconds)' }),
  },
  { description: 'The service level to meet, e.g. 80 % within 20 s' },
);

/** The options staffing/erlang and staffing/plan share. */
const Options = {
  target: Target,
  shrinkage: Type.Optional(Percent('Percent of paid time agents are not available for calls (breaks, training); default 0', { exclusiveMaximum: 100 })),
  maxOccupancy: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, maximum: 100, description: 'Percent: the most of their logged-in time agents may be busy; default 100 (no cap)' }),
  ),
  patience: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, maximum: 86400, description: "The callers' mean patience, seconds: Erlang A (M/M/n+M) when given, else Erlang C" }),
  ),
};

export const ErlangBody = Type.Object({
  offered: Type.Number({ minimum: 0, maximum: 1_000_000, description: 'Calls offered in the interval' }),
  intervalMinutes: Type.Integer({ minimum: 1, maximum: 1440, description: 'The interval’s length, minutes' }),
  aht: Type.Number({ exclusiveMinimum: 0, maximum: 86400, description: 'Mean handle time (talk + hold + wrap-up), seconds' }),
  ...Options,
});

const Pct = (description: string) => Type.Number({ description: `${description}; percent, 2 decimals` });
const Secs = (description: string) => Type.Number({ description: `${description}; seconds, 2 decimals` });

export const ErlangResult = Type.Object({
  traffic: Type.Number({ description: 'Offered traffic, Erlangs (offered × aht ÷ interval seconds), 2 decimals' }),
  agents: Type.Integer({ description: 'The fewest agents meeting the target and the occupancy cap' }),
  scheduled: Type.Integer({ description: 'agents ÷ (1 − shrinkage), rounded up' }),
  serviceLevel: Pct('Share of all arriving calls answered within target.seconds, at `agents`'),
  pWait: Pct('Probability that a call waits'),
  asa: Secs('Mean wait of all calls (answered or, in Erlang A, abandoned)'),
  occupancy: Pct('Carried traffic ÷ agents (carried excludes abandoned calls)'),
  pAbandon: Type.Optional(Pct('Probability that a caller abandons (Erlang A only: present when patience is given)')),
});

export const ErlangResponse = SuccessSchema({ data: ErlangResult });

const Nullable = (t: ReturnType<typeof Type.Number> | ReturnType<typeof Type.Integer>) => Type.Union([t, Type.Null()]);

export const PlanBody = Type.Object({
  date: Type.Union([Type.Number(), Type.String()], {
    description: 'The day to plan: MM-DD-YYYY (also with / or spaces) or Unix seconds, read in the account time zone (the local day holding it)',
  }),
  groupId: Type.Optional(Type.Integer({ minimum: 0, description: 'One group; default every group of the account' })),
  interval: Type.Union([Type.Literal('15m'), Type.Literal('30m'), Type.Literal('hour')], { description: 'The plan’s intervals (local wall clock)' }),
  ...Options,
  weeks: Type.Optional(Type.Integer({ minimum: 1, maximum: 52, description: 'Weeks of history: the same weekday of each; default 4' })),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'csv: the rows as text/csv (RFC 4180)' })),
});

export const PlanRow = Type.Object({
  groupId: Type.Integer(),
  start: Type.Integer({ description: 'Unix seconds' }),
  end: Type.Integer({ description: 'Unix seconds, exclusive' }),
  forecastOffered: Type.Number({
    description: 'Mean calls offered (report/queue) in this wall-clock interval on the same weekday of the weeks before; 2 decimals',
  }),
  forecastAht: Nullable(
    Type.Number({
      description: 'AHT (seconds, 2 decimals) of those calls answered; the group’s over the whole weeks when they had none; null when none was answered',
    }),
  ),
  agents: Nullable(Type.Integer({ description: 'Agents needed (staffing/erlang for forecastOffered and forecastAht); 0 without calls; null without an AHT' })),
  scheduled: Nullable(Type.Integer({ description: 'agents ÷ (1 − shrinkage), rounded up' })),
  offered: Nullable(Type.Integer({ description: 'Calls offered in the interval (report/queue); null until the interval is over' })),
  loggedIn: Nullable(
    Type.Number({ description: 'Agents of the group logged in on average: report/agent login seconds ÷ interval seconds, 2 decimals; null until over' }),
  ),
  gap: Nullable(Type.Number({ description: 'loggedIn − agents; null until over (or without agents)' })),
});

export const PlanResponse = SuccessSchema({ data: Type.Array(PlanRow) });
