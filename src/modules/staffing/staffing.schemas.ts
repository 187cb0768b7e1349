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
