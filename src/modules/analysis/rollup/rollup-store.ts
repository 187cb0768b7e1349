import type { Queryable } from '../../../db/types.js';
import { probeRows } from '../../../db/in-list.js';
import { tenant } from '../../../db/tenant.js';
import type { CallFacts } from './counters.js';
import type { FlagBooking, RollupStore } from './rollup-batch.js';

export interface CallRow {
  call_id: string;
  queued_at: number;
  direction: string;
  group_id: number | null;
  did: string | null;
  campaign_id: string | null;
  retry_of: string | null;
  answered_at: number | null;
  talk_secs: number;
  hold_secs: number;
}

export function factsOfRow(r: CallRow, hits: { agent_id: number; ring_secs: number; answered: number }[]): CallFacts {
  return {
    callId: r.call_id,
    queuedAt: Number(r.queued_at),
    direction: r.direction,
    groupId: r.group_id === null ? null : Number(r.group_id),
    did: r.did,
    campaignId: r.campaign_id,
    retryOf: r.retry_of,
    answeredAt: r.answered_at === null ? null : Number(r.answered_at),
    talkSecs: Number(r.talk_secs),
    holdSecs: Number(r.hold_secs),
    hits: hits.map((h) => ({ agentId: Number(h.agent_id), ringSecs: Number(h.ring_secs), answered: Number(h.answered) === 1 })),
  };
}

export const CALL_COLUMNS = 'call_id, queued_at, direction, group_id, did, campaign_id, retry_of, answered_at, talk_secs, hold_secs';

function flagOfRow(row: { hour: number; direction: string; cells: string }): FlagBooking {
  return { slot: Number(row.hour), direction: row.direction, cells: JSON.parse(row.cells) as FlagBooking['cells'] };
}

/** Reads retries and originals from the calls tables in the caller's transaction; bookings in analysis_retry_flags. */
export function tableStore(tx: Queryable, accountId: number): RollupStore {
  const t = tenant(tx, accountId);
  return {
    async getFlag(callId) {
      const row = await t.get<{ hour: number; direction: string; cells: string }>(
        'SELECT hour, direction, cells FROM analysis_retry_flags WHERE account_id = $1 AND call_id = $2',
        [callId],
      );
      return row ? flagOfRow(row) : null;
    },
    async setFlag(callId, b) {
      if (!b) await t.run('DELETE FROM analysis_retry_flags WHERE account_id = $1 AND call_id = $2', [callId]);
      else {
        await t.run(
          `INSERT INTO analysis_retry_flags (account_id, call_id, hour, direction, cells) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (account_id, call_id) DO UPDATE SET hour = excluded.hour, direction = excluded.direction, cells = excluded.cells`,
          [callId, b.slot, b.direction, JSON.stringify(b.cells)],
        );
      }
    },
    async answeredRetries(callId) {
      const rows = await t.all<{ call_id: string }>('SELECT call_id FROM calls WHERE account_id = $1 AND retry_of = $2 AND answered_at IS NOT NULL', [callId]);
      return rows.map((r) => r.call_id);
    },
    async loadCall(callId) {
      const row = await t.get<CallRow>(`SELECT ${CALL_COLUMNS} FROM calls WHERE account_id = $1 AND call_id = $2`, [callId]);
      if (!row) return null;
      const hits = await t.all<{ agent_id: number; ring_secs: number; answered: number }>(
        'SELECT agent_id, ring_secs, answered FROM call_hits WHERE account_id = $1 AND call_id = $2 ORDER BY seq',
        [callId],
      );
      return factsOfRow(row, hits);
    },
  };
}

/**
 * tableStore for a batch of calls (new ones, or old versions about to
 * leave), with the flag bookings of the calls and of the originals they
 * retry, and the answered retries of those calls, read up front in one
 * statement each instead of one or two per call (on PostgreSQL a round trip
 * each, most of an ingest batch's roll-up time). The calls' rows are in the
 * table and stay as they are during the batch, and nothing but the roll-up
 * changes flags meanwhile, so the answers are those the per-call statements
 * would give; bookings written meanwhile are kept in step.
 */
export async function batchStore(tx: Queryable, accountId: number, calls: readonly CallFacts[]): Promise<RollupStore> {
  const base = tableStore(tx, accountId);
  const t = tenant(tx, accountId);
  const ids = [...new Set(calls.flatMap((c) => (c.retryOf && c.retryOf !== c.callId ? [c.callId, c.retryOf] : [c.callId])))];
  if (ids.length === 0) return base;
  const flags = new Map<string, FlagBooking | null>(ids.map((id) => [id, null]));
  const inFlags = probeRows(t, 'analysis_retry_flags', 'f', 'call_id', 2, ids);
  for (const row of await t.all<{ call_id: string; hour: number; direction: string; cells: string }>(
    `SELECT f.call_id, f.hour, f.direction, f.cells FROM ${inFlags.sql}`,
    [inFlags.param],
  )) {
    flags.set(row.call_id, flagOfRow(row));
  }
  const retries = new Map<string, string[]>(ids.map((id) => [id, []]));
  const inRetries = probeRows(t, 'calls', 'c', 'retry_of', 2, ids);
  for (const row of await t.all<{ call_id: string; retry_of: string }>(`SELECT c.call_id, c.retry_of FROM ${inRetries.sql} WHERE c.answered_at IS NOT NULL`, [
    inRetries.param,
  ])) {
    retries.get(row.retry_of)!.push(row.call_id);
  }
  return {
    answeredRetries: async (id) => retries.get(id) ?? base.answeredRetries(id),
    loadCall: (id) => base.loadCall(id),
    getFlag: async (id) => (flags.has(id) ? flags.get(id)! : base.getFlag(id)),
    async setFlag(id, booking) {
      await base.setFlag(id, booking);
      if (flags.has(id)) flags.set(id, booking);
    },
  };
}
