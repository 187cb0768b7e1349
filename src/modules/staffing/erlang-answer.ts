import { fail } from '../../errors/catalogue.js';
import { round2 } from '../report/figures.js';
import { fewestAgents } from './erlang.js';

/** Beyond this the model is not what anyone plans with, and the answer would no longer come in milliseconds. */
export const MAX_TRAFFIC = 10_000;

export interface ErlangInput {
  offered: number;
  intervalMinutes: number;
  aht: number;
  target: { serviceLevel: number; seconds: number };
  shrinkage?: number;
  maxOccupancy?: number;
  patience?: number;
}

export interface ErlangFigures {
  traffic: number;
  agents: number;
  scheduled: number;
  serviceLevel: number;
  pWait: number;
  asa: number;
  occupancy: number;
  pAbandon?: number;
}

/** agents ÷ (1 − shrinkage), rounded up; 14 ÷ 0.7 is 20.000000000000004 in floating point, and 20 agents are enough. */
export function scheduledFor(agents: number, shrinkagePercent: number): number {
  return agents === 0 ? 0 : Math.ceil(agents / (1 - shrinkagePercent / 100) - 1e-9);
}

/**
 * staffing/erlang (PRODUCT.md §14): the fewest agents for one interval's
 * calls and the figures at that many, percentages and seconds to 2 decimals.
 */
export function erlangAnswer(q: ErlangInput): ErlangFigures {
  const traffic = (q.offered * q.aht) / (q.intervalMinutes * 60);
  if (traffic > MAX_TRAFFIC) throw fail(1001, `offered × aht ÷ interval is ${Math.round(traffic)} Erlangs; at most ${MAX_TRAFFIC} are answered`);
  const m = fewestAgents({
    traffic,
    aht: q.aht,
    serviceLevel: q.target.serviceLevel / 100,
    seconds: q.target.seconds,
    maxOccupancy: (q.maxOccupancy ?? 100) / 100,
    patience: q.patience,
  });
  const pct = (x: number) => round2(x * 100)!;
  return {
    traffic: round2(traffic)!,
    agents: m.agents,
    scheduled: scheduledFor(m.agents, q.shrinkage ?? 0),
    serviceLevel: pct(m.serviceLevel),
    pWait: pct(m.pWait),
    asa: round2(m.asa)!,
    occupancy: pct(m.occupancy),
    ...(q.patience !== undefined ? { pAbandon: pct(m.pAbandon) } : {}),
  };
}
