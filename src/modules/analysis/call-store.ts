import type { Param, Queryable } from '../../db/types.js';
import { tenant } from '../../db/tenant.js';
import type { CallRecord } from '../calls/call-record.js';
import { applyToRollups } from './rollups.js';

const CALL_INSERT_COLS = 'account_id, call_id, queued_at, ended_at, group_id, did, campaign_id, direction, caller, retry_of, answered_by, answered_at, talk_secs, hold_secs, wait_secs, outcome';
const HIT_INSERT_COLS = 'account_id, call_id, seq, agent_id, ring_at, ring_secs, answered';

function callParams(r: CallRecord): Param[] {
  return [r.callId, r.queuedAt, r.endedAt, r.groupId, r.did, r.campaignId, r.direction, r.caller, r.retryOf, r.answeredBy, r.answeredAt, r.talkSecs, r.holdSecs, r.waitSecs, r.outcome];
}

function placeholders(rows: number, width: number): string {
  return Array.from({ length: rows }, (_, r) => `($1, ${Array.from({ length: width }, (_, c) => `$${2 + r * width + c}`).join(', ')})`).join(', ');
}

/**
 * Writes finished calls into `calls` / `call_hits` with multi-row INSERTs (no
 * roll-up: the caller applies the records through RollupBatch or
 * applyToRollups in the same transaction). All records belong to one account.
 */
export async function insertCallRows(tx: Queryable, accountId: number, records: CallRecord[]): Promise<void> {
  const t = tenant(tx, accountId);
  const CALLS_PER_STATEMENT = 60;
  for (let i = 0; i < records.length; i += CALLS_PER_STATEMENT) {
    const chunk = records.slice(i, i + CALLS_PER_STATEMENT);
    await t.run(`INSERT INTO calls (${CALL_INSERT_COLS}) VALUES ${placeholders(chunk.length, 15)}`, chunk.flatMap(callParams));
  }
  const hits = records.flatMap((r) => r.hits.map((h): Param[] => [r.callId, h.seq, h.agentId, h.ringAt, h.ringSecs, h.answered ? 1 : 0]));
  const HITS_PER_STATEMENT = 150;
  for (let i = 0; i < hits.length; i += HITS_PER_STATEMENT) {
    const chunk = hits.slice(i, i + HITS_PER_STATEMENT);
    await t.run(`INSERT INTO call_hits (${HIT_INSERT_COLS}) VALUES ${placeholders(chunk.length, 6)}`, chunk.flat());
  }
}

/** Stores one finished call and rolls it up (what an ingest does when a call ends). */
export async function storeCall(tx: Queryable, record: CallRecord): Promise<void> {
  await insertCallRows(tx, record.accountId, [record]);
  await applyToRollups(tx, record, 1);
}

/** Replaces a stored call by a new version (a late event): -1 for the old version, +1 for the new one. */
export async function replaceCall(tx: Queryable, old: CallRecord, next: CallRecord): Promise<void> {
  const t = tenant(tx, old.accountId);
  await t.run('DELETE FROM call_hits WHERE account_id = $1 AND call_id = $2', [old.callId]);
  await t.run('DELETE FROM calls WHERE account_id = $1 AND call_id = $2', [old.callId]);
  await applyToRollups(tx, old, -1);
  await storeCall(tx, next);
}
