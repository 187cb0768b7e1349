import type { Queryable } from '../../db/types.js';
import type { Retention } from '../account/account.service.js';
import { moveRecentAgentStates } from '../events/agent-states.js';
import { RetentionRepository } from './retention.repository.js';

/** What a run removed, per kind. */
export interface RetentionCounts {
  calls: number;
  hits: number;
  recordings: number;
  originated: number;
  agentStates: number;
  /** Campaign dials whose number and notes were removed (the dials stay, as counts). */
  campaignDials: number;
  audit: number;
}

export interface BatchResult {
  /** Rows removed by this batch; 0 ends the purger's loop. */
  removed: number;
  counts?: Partial<RetentionCounts>;
  /** Recording files (relative to RECORDINGS_DIR) to delete once the batch committed. */
  files?: string[];
}

/**
 * Runs one batch in its own short transaction, then deletes its files,
 * renews the job's lease and yields, so ingest gets the database between
 * batches (on SQLite the one connection) — retention-job.ts.
 */
export type BatchRunner = <T extends BatchResult>(batch: (tx: Queryable) => Promise<T>) => Promise<T>;

/**
 * One kind of data with a horizon: it removes what is older than `cutoff`
 * (Unix seconds) for one account, batch after batch through `run`. A new
 * store of dated rows adds a purger here.
 */
export interface Purger {
  name: string;
  horizon: keyof Retention;
  purge(accountId: number, cutoff: number, run: BatchRunner, batchSize: number): Promise<void>;
}

/**
 * The audit trail's purge, plugged in by the composition root:
 * `purgeAuditBefore` of the audit module (the one deletion the append-only
 * table allows). Removes up to `batchLimit` records before `cutoff` (Unix
 * seconds) and answers how many.
 */
export type AuditPurge = (tx: Queryable, accountId: number, cutoff: number, batchLimit: number) => Promise<number>;

const repo = (tx: Queryable, accountId: number) => new RetentionRepository(tx, accountId);

async function untilEmpty(run: BatchRunner, batch: (tx: Queryable) => Promise<BatchResult>): Promise<void> {
  while ((await run(batch)).removed > 0);
}

/** Calls and what is kept per call: hits, legs, recordings, click-to-call rows, webhook deliveries. */
const calls: Purger = {
  name: 'calls',
  horizon: 'callDays',
  purge: (accountId, cutoff, run, size) =>
    untilEmpty(run, async (tx) => {
      const r = repo(tx, accountId);
      const ids = await r.oldCalls(cutoff, size);
      if (ids.length === 0) return { removed: 0 };
      const out = await r.removeCalls(ids);
      return { removed: out.calls, counts: { calls: out.calls, hits: out.hits, recordings: out.recordings }, files: out.paths };
    }),
};

/** Click-to-call rows whose call never reached the history. */
const originated: Purger = {
  name: 'originated_calls',
  horizon: 'callDays',
  purge: (accountId, cutoff, run, size) =>
    untilEmpty(run, async (tx) => {
      const n = await repo(tx, accountId).removeOldOriginated(cutoff, size);
      return { removed: n, counts: { originated: n } };
    }),
};

/** Campaign dials: past the horizon their number and notes go, the rows stay for the campaign figures. */
const campaignDials: Purger = {
  name: 'campaign_calls',
  horizon: 'callDays',
  purge: (accountId, cutoff, run, size) =>
    untilEmpty(run, async (tx) => {
      const n = await repo(tx, accountId).expireCampaignDials(cutoff, size);
      return { removed: n, counts: { campaignDials: n } };
    }),
};

/** Agents' past states (migration 075): all but the last one at or before the horizon, which later events are judged against. */
const agentStates: Purger = {
  name: 'agent_state_log',
  horizon: 'callDays',
  async purge(accountId, cutoff, run, size) {
    const { agents } = await run(async (tx) => {
      // The ingest's recent states first (events/agent-states.ts): then one table holds them all.
      await moveRecentAgentStates(tx, accountId);
      return { removed: 0, agents: await repo(tx, accountId).agentsWithOldStates(cutoff) };
    });
    for (const agentId of agents) {
      await untilEmpty(run, async (tx) => {
        const n = await repo(tx, accountId).removeOldStates(agentId, cutoff, size);
        return { removed: n, counts: { agentStates: n } };
      });
    }
  },
};

/** Recordings (rows and files) past their own horizon, whether or not their calls are kept. */
const recordings: Purger = {
  name: 'call_recordings',
  horizon: 'recordingDays',
  purge: (accountId, cutoff, run, size) =>
    untilEmpty(run, async (tx) => {
      const out = await repo(tx, accountId).removeOldRecordings(cutoff, size);
      return { removed: out.recordings, counts: { recordings: out.recordings }, files: out.paths };
    }),
};

function auditPurger(purge: AuditPurge): Purger {
  return {
    name: 'audit_log',
    horizon: 'auditDays',
    purge: (accountId, cutoff, run, size) =>
      untilEmpty(run, async (tx) => {
        // Audit records are stamped in whole seconds; the horizon may fall within one.
        const n = await purge(tx, accountId, Math.floor(cutoff), size);
        return { removed: n, counts: { audit: n } };
      }),
  };
}

/**
 * Every purger, in the order they run. `audit`: the audit trail's purge —
 * the slot the audit module fills (auditDays is accepted and validated
 * already; without the module nothing is removed for it).
 */
export function purgers(audit: AuditPurge | null): Purger[] {
  const all = [calls, originated, campaignDials, agentStates, recordings];
  if (audit) all.push(auditPurger(audit));
  return all;
}
