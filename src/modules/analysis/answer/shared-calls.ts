/**
 * Several named agents from the cube (a breakdown by group, DID or
 * campaign filtered on two or more agents). The cube keeps one cell per
 * agent, so summing the named agents' cells counts a call offered to two of
 * them twice; the answer counts it once, through all their hits, as the raw
 * path does. Those calls are few (an offer goes to one agent at a time):
 * each is read, its per-agent shares are taken back out, and it is added
 * once. Exact by construction: every share is computed by the same
 * addCallInKey the roll-up wrote the cells with.
 */
import { keysOf } from '../rollup/counters.js';
import { factsOfRow } from '../rollup/rollup-store.js';
import { cell, type Grid } from '../wire/hits-json.js';
import type { HitsPlan } from '../query/plan.js';
import { addCounted, callLabel, hitsByCall } from './call-counts.js';

/** The named agents when the cube answers through their cells and some calls may be shared; null otherwise. */
export function sharedAgents(p: HitsPlan): string[] | null {
  const a = p.query.filters.agent;
  if (p.query.breakDown === 'agent' || !a?.include || a.include.size < 2 || a.exclude.size > 0) return null;
  return [...a.include].filter((v) => /^\d+$/.test(v));
}

/** Corrects the summed per-agent cells in `grid` for the calls offered to two or more of `agents`. */
export async function countSharedCallsOnce(p: HitsPlan, grid: Grid, agents: string[]): Promise<void> {
  const r = p.query.range;
  const { calls, hits, retried } = await p.repo.sharedCalls({ from: r?.from ?? null, to: r?.to ?? null, filters: p.filters }, agents);
  const byCall = hitsByCall(hits);
  for (const row of calls) {
    const c = factsOfRow(row, byCall.get(row.call_id) ?? []);
    const label = callLabel(p, c.queuedAt);
    for (const [key, keyHits] of keysOf(c, p.query.breakDown)) {
      const v = cell(grid, key, label);
      // Each named agent's share as the cube's cells hold it taken back, the call added once.
      for (const agentHits of keysOf(c, 'agent').values()) addCounted(v, c, agentHits, -1, p.ghost, retried);
      addCounted(v, c, keyHits, 1, p.ghost, retried);
    }
  }
}
