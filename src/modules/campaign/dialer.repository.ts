import { bulkWrite, type BulkColumn } from '../../db/bulk.js';
import { dialectOf } from '../../db/dialect.js';
import { inList } from '../../db/in-list.js';
import type { TenantQueries } from '../../db/tenant.js';
import type { Param } from '../../db/types.js';
import { AbandonWindowRepository, COUNTED_SQL, type ChangedDial, type WindowFigures } from './abandon-window.repository.js';
import { SampleBuilder, type DialSample, type RecentDial } from './dial-sample.js';

export type { RecentDial } from './dial-sample.js';

/** A contact's attempt state in one campaign (`campaign_contacts`). */
export interface AttemptRow {
  contact_id: number;
  cl_id: number;
  position: number;
  number: string;
  attempts: number;
  next_at: number;
  callback: number;
  done: number;
  in_call: string | null;
  awaiting: string | null;
  last_call: string | null;
  last_outcome: string | null;
  reserved_by: number | null;
  reserved_until: number;
}

/** One dial (`campaign_calls`). */
export interface CallRow {
  call_id: string;
  campaign_id: number;
  contact_id: number;
  number: string;
  agent_id: number | null;
  attempt: number;
  retry_of: string | null;
  predictive: number;
  dialled_at: number;
  connected_at: number | null;
  answered_by: string | null;
  agent_answered_at: number | null;
  ended_at: number | null;
  outcome: string | null;
  disposition: string | null;
  disposed_at: number | null;
  notes: string | null;
}

/** What addContacts writes of a new attempt row (the rest take their defaults). */
const CONTACT_COLUMNS: readonly BulkColumn[] = [
  { name: 'campaign_id', pg: 'bigint' },
  { name: 'contact_id', pg: 'bigint' },
  { name: 'cl_id', pg: 'bigint' },
  { name: 'position', pg: 'bigint' },
  { name: 'number', pg: 'text' },
  { name: 'next_at', pg: 'bigint' },
  { name: 'callback_at', pg: 'bigint' },
  { name: 'callback_seq', pg: 'bigint' },
];

const ATTEMPT =
  'contact_id, cl_id, position, number, attempts, next_at, callback, done, in_call, awaiting, last_call, last_outcome, reserved_by, reserved_until';
const CALL =
  'call_id, campaign_id, contact_id, number, agent_id, attempt, retry_of, predictive, dialled_at, connected_at, answered_by, agent_answered_at, ended_at, outcome, disposition, disposed_at, notes';

function num<T extends object>(r: T, keys: Array<keyof T>): T {
  for (const k of keys) if (r[k] !== null && r[k] !== undefined) (r as Record<keyof T, unknown>)[k] = Number(r[k]);
  return r;
}
const attemptRow = (r: AttemptRow) => num(r, ['contact_id', 'cl_id', 'position', 'attempts', 'next_at', 'callback', 'done', 'reserved_by', 'reserved_until']);
const callRow = (r: CallRow) =>
  num(r, ['campaign_id', 'contact_id', 'agent_id', 'attempt', 'predictive', 'dialled_at', 'connected_at', 'agent_answered_at', 'ended_at', 'disposed_at']);

/** Campaigns whose recent dials one statement reads (recentDialsOf, and samplesOf on SQLite). */
const RECENT_PER_STATEMENT = 8;

/** A campaign's dials with a result, newest first (ties by call id): `$2` of them, the campaign `$c`. */
const recentOf = (columns: string, c: string) => `SELECT ${columns} FROM campaign_calls
         WHERE account_id = $1 AND campaign_id = ${c} AND (ended_at IS NOT NULL OR connected_at IS NOT NULL)
         ORDER BY dialled_at DESC, call_id DESC LIMIT $2`;

/**
 * recentDialsOf's statements, by how many campaigns they read ($2 the
 * limit, $3… the campaigns). SQLite takes no ORDER BY or LIMIT in a
 * compound SELECT's member, hence each read in a subquery. No ORDER BY
 * around them: recentDialsOf puts each campaign's rows in order itself (a
 * UNION ALL's order is not certain; sorting up to 1,600 rows in the
 * statement cost SQLite a temporary B-tree per member, about 1 ms per 8
 * campaigns).
 */
const RECENT_DIALS_SQL = Array.from({ length: RECENT_PER_STATEMENT + 1 }, (_, count) =>
  count === 0
    ? ''
    : Array.from(
        { length: count },
        (_, i) =>
          `SELECT * FROM (${recentOf('campaign_id, call_id, dialled_at, connected_at, answered_by, agent_answered_at, ended_at, wrap_secs', `$${i + 3}`)}) AS r${i}`,
      ).join('\nUNION ALL\n'),
);

/**
 * What samplesOf groups a dial by and adds up of it (dial-sample.ts, as
 * `sampleOf` does for a row): seconds to its answer or end (clamped at 0 in
 * SampleBuilder), whether a person answered, whether an agent took the call
 * and its talk, whether it had wrap-up and how much in whole milliseconds
 * (floored: the sums of whole numbers are the same in any order).
 */
const sampleColumns = (d: 'sqlite' | 'postgres') => `campaign_id, COALESCE(connected_at, ended_at) - dialled_at AS secs,
         CASE WHEN answered_by = 'human' THEN 1 ELSE 0 END AS human,
         CASE WHEN answered_by = 'human' AND agent_answered_at IS NOT NULL AND ended_at IS NOT NULL THEN 1 ELSE 0 END AS talk_n,
         CASE WHEN answered_by = 'human' AND agent_answered_at IS NOT NULL AND ended_at > agent_answered_at THEN ended_at - agent_answered_at ELSE 0 END AS talk,
         CASE WHEN wrap_secs > 0 THEN 1 ELSE 0 END AS wrap_n,
         CASE WHEN wrap_secs > 0 THEN ${d === 'postgres' ? 'CAST(floor(wrap_secs * 1000) AS BIGINT)' : 'CAST(wrap_secs * 1000 AS INTEGER)'} ELSE 0 END AS wrap_ms`;
const SAMPLE_SUMS = 'COUNT(*), SUM(r.talk_n), SUM(r.talk), SUM(r.wrap_n), SUM(r.wrap_ms)';

/**
 * samplesOf's statements. PostgreSQL: one for every campaign, a LATERAL
 * read of each one's last dials (the index range stopped at the limit, as
 * recentDialsOf's), grouped. SQLite (no LATERAL): up to
 * RECENT_PER_STATEMENT campaigns a statement, a grouped subquery each,
 * joined by UNION ALL (by how many: index = count).
 */
const SAMPLES_PG_SQL = `SELECT r.campaign_id, r.secs, r.human, ${SAMPLE_SUMS}
  FROM unnest($3::bigint[]) AS v(campaign_id) CROSS JOIN LATERAL (${recentOf(sampleColumns('postgres'), 'v.campaign_id')}) AS r
  GROUP BY r.campaign_id, r.secs, r.human`;
const SAMPLES_SQLITE_SQL = Array.from({ length: RECENT_PER_STATEMENT + 1 }, (_, count) =>
  Array.from(
    { length: count },
    (_, i) =>
      `SELECT r.campaign_id, r.secs, r.human, ${SAMPLE_SUMS} FROM (${recentOf(sampleColumns('sqlite'), `$${i + 3}`)}) AS r GROUP BY r.campaign_id, r.secs, r.human`,
  ).join('\nUNION ALL\n'),
);

/** The dialer's state of one account: attempts per contact, dials, and what the figures count. */
export class DialerRepository {
  constructor(private readonly t: TenantQueries) {}

  /**
   * Adds contacts read from the lists (a contact already there is left as it
   * is): one statement on PostgreSQL for a tick's read (up to 500 contacts),
   * not a round trip each (bulkWrite).
   */
  async addContacts(
    campaignId: number,
    rows: Array<{ contactId: number; clId: number; position: number; number: string; nextAt: number; callbackAt: number | null; callbackSeq: number }>,
  ): Promise<void> {
    await bulkWrite(
      this.t,
      'campaign_contacts',
      CONTACT_COLUMNS,
      ['campaign_id', 'contact_id'],
      rows.map((r) => ({
        campaign_id: campaignId,
        contact_id: r.contactId,
        cl_id: r.clId,
        position: r.position,
        number: r.number,
        next_at: r.nextAt,
        callback_at: r.callbackAt,
        callback_seq: r.callbackSeq,
      })),
      'nothing',
    );
  }

  /**
   * A callback the contact is first in line for from `at` (a `callback`
   * disposition; list callbacks through markDueCallbacks), unless it is in a
   * call or done.
   */
  async markCallback(campaignId: number, contactId: number, at: number): Promise<void> {
    await this.t.run(
      `UPDATE campaign_contacts SET callback = 1, next_at = $4, awaiting = NULL
       WHERE account_id = $1 AND campaign_id = $2 AND contact_id = $3 AND in_call IS NULL AND done = 0`,
      [campaignId, contactId, at],
    );
  }

  /**
   * List callback changes (ContactListsPort.callbackChanges) on the
   * campaign's contacts: each becomes the callback the campaign has yet to
   * honour (`callback_at`; null: none), unless the contact already holds
   * that change or a later one (the list read it in with its contacts). A
   * contact not read in yet takes its callback when it is. One statement.
   */
  async applyCallbackChanges(campaignId: number, rows: ReadonlyArray<{ contactId: number; at: number | null; seq: number }>): Promise<void> {
    if (rows.length === 0) return;
    await this.t.run(
      `UPDATE campaign_contacts AS c SET callback_at = j.at, callback_seq = j.seq
       FROM ${dialectOf(this.t).jsonRows(3, 'j', [
         ['contact_id', 'bigint'],
         ['at', 'bigint'],
         ['seq', 'bigint'],
       ])}
       WHERE c.account_id = $1 AND c.campaign_id = $2 AND c.contact_id = j.contact_id AND c.callback_seq < j.seq`,
      [campaignId, JSON.stringify(rows.map((r) => ({ contact_id: r.contactId, at: r.at, seq: r.seq })))],
    );
  }

  /** Whether any of the campaigns has a list callback to honour that is due at `now` (the partial index's rows only). */
  async hasDueCallbacks(campaignIds: readonly number[], now: number): Promise<boolean> {
    if (campaignIds.length === 0) return false;
    const list = inList(this.t, 'campaign_id', 2, campaignIds);
    const row = await this.t.getValues(
      `SELECT 1 FROM campaign_contacts WHERE account_id = $1 AND ${list.sql} AND callback_at IS NOT NULL AND callback_at <= $3 LIMIT 1`,
      [list.param, now],
    );
    return row !== undefined;
  }

  /**
   * Honours the campaigns' list callbacks due at `now`: each contact is first
   * in line from its callback's time (a done one stays done), and the
   * callback is spent — it is not read again. A contact in a call keeps its
   * callback until the call is over. Answers how many were spent.
   */
  async markDueCallbacks(campaignIds: readonly number[], now: number): Promise<number> {
    if (campaignIds.length === 0) return 0;
    const list = inList(this.t, 'campaign_id', 2, campaignIds);
    const res = await this.t.run(
      `UPDATE campaign_contacts SET callback = CASE WHEN done = 0 THEN 1 ELSE callback END,
              next_at = CASE WHEN done = 0 THEN callback_at ELSE next_at END,
              awaiting = CASE WHEN done = 0 THEN NULL ELSE awaiting END,
              callback_at = NULL
       WHERE account_id = $1 AND ${list.sql} AND callback_at IS NOT NULL AND callback_at <= $3 AND in_call IS NULL`,
      [list.param, now],
    );
    return res.changes;
  }

  /** Candidates in dial order: due callbacks, then fewest attempts, then list order. */
  candidates(campaignId: number, now: number, maxAttempts: number, limit: number): Promise<AttemptRow[]> {
    return this.t
      .all<AttemptRow>(
        `SELECT ${ATTEMPT} FROM campaign_contacts
         WHERE account_id = $1 AND campaign_id = $2 AND done = 0 AND next_at <= $3 AND attempts < $4
           AND in_call IS NULL AND awaiting IS NULL AND reserved_until <= $3
         ORDER BY callback DESC, attempts, position LIMIT $5`,
        [campaignId, now, maxAttempts, limit],
      )
      .then((rows) => rows.map(attemptRow));
  }

  /** The contact a preview holds for the agent now, if any. */
  heldFor(campaignId: number, agentId: number, now: number): Promise<AttemptRow | undefined> {
    return this.t
      .get<AttemptRow>(
        `SELECT ${ATTEMPT} FROM campaign_contacts WHERE account_id = $1 AND campaign_id = $2 AND reserved_by = $3 AND reserved_until > $4 AND in_call IS NULL`,
        [campaignId, agentId, now],
      )
      .then((r) => r && attemptRow(r));
  }

  attempt(campaignId: number, contactId: number): Promise<AttemptRow | undefined> {
    return this.t
      .get<AttemptRow>(`SELECT ${ATTEMPT} FROM campaign_contacts WHERE account_id = $1 AND campaign_id = $2 AND contact_id = $3`, [campaignId, contactId])
      .then((r) => r && attemptRow(r));
  }

  /** Leaves a contact for later (`nextAt`), or for good (`done`), with why. */
  async setLater(campaignId: number, contactId: number, nextAt: number, done: boolean, outcome: string | null, number?: string): Promise<void> {
    await this.t.run(
      `UPDATE campaign_contacts SET next_at = $4, done = $5, last_outcome = COALESCE($6, last_outcome), number = COALESCE($7, number)
       WHERE account_id = $1 AND campaign_id = $2 AND contact_id = $3`,
      [campaignId, contactId, nextAt, done ? 1 : 0, outcome, number ?? null],
    );
  }

  async reserve(campaignId: number, contactId: number, agentId: number | null, until: number): Promise<void> {
    await this.t.run('UPDATE campaign_contacts SET reserved_by = $4, reserved_until = $5 WHERE account_id = $1 AND campaign_id = $2 AND contact_id = $3', [
      campaignId,
      contactId,
      agentId,
      until,
    ]);
  }

  call(callId: string): Promise<CallRow | undefined> {
    return this.t.get<CallRow>(`SELECT ${CALL} FROM campaign_calls WHERE account_id = $1 AND call_id = $2`, [callId]).then((r) => r && callRow(r));
  }

  /**
   * The one writer of a dial's answer (`answered_by`) and outcome, what the
   * abandon window counts: the change, then in the same statement's
   * transaction its difference to the window's counters
   * (AbandonWindowRepository.follow). Every change of either goes through
   * here (callProgress, endCall, markAbandoned; abandon-window.test.ts
   * fails on any other statement that writes them), so none can leave the
   * counters behind. The caller's statements must be in one transaction.
   */
  private async changeDial(callId: string, set: string, where: string, params: readonly Param[]): Promise<void> {
    const rows = await this.t.all<ChangedDial>(
      `UPDATE campaign_calls SET ${set} WHERE account_id = $1 AND call_id = $2${where} RETURNING campaign_id, dialled_at, counted, ${COUNTED_SQL} AS now`,
      [callId, ...params],
    );
    for (const r of rows) await new AbandonWindowRepository(this.t).follow(callId, r);
  }

  /** Connection and who answered, the agent's answer (in a transaction: changeDial). */
  async callProgress(callId: string, f: { connectedAt?: number; answeredBy?: string; agentAnsweredAt?: number; agentId?: number }): Promise<void> {
    await this.changeDial(
      callId,
      `connected_at = COALESCE(connected_at, $3), answered_by = COALESCE(answered_by, $4),
         agent_answered_at = COALESCE(agent_answered_at, $5), agent_id = COALESCE($6, agent_id)`,
      '',
      [f.connectedAt ?? null, f.answeredBy ?? null, f.agentAnsweredAt ?? null, f.agentId ?? null],
    );
  }

  /** The call's end and outcome, once (in a transaction: changeDial). */
  async endCall(callId: string, endedAt: number, outcome: string): Promise<void> {
    await this.changeDial(callId, 'ended_at = $3, outcome = $4, obd_pending = 1', ' AND ended_at IS NULL', [endedAt, outcome]);
  }

  /** After a call's end: the contact's next state. */
  async afterCall(campaignId: number, contactId: number, s: { nextAt: number; done: boolean; awaiting: string | null; outcome: string }): Promise<void> {
    await this.t.run(
      `UPDATE campaign_contacts SET in_call = NULL, next_at = $4, done = $5, awaiting = $6, last_outcome = $7
       WHERE account_id = $1 AND campaign_id = $2 AND contact_id = $3`,
      [campaignId, contactId, s.nextAt, s.done ? 1 : 0, s.awaiting, s.outcome],
    );
  }

  /** The contact is in the call (a disposition set during it changed the rest of its state). */
  async keepInCall(campaignId: number, contactId: number, callId: string): Promise<void> {
    await this.t.run('UPDATE campaign_contacts SET in_call = $4 WHERE account_id = $1 AND campaign_id = $2 AND contact_id = $3', [
      campaignId,
      contactId,
      callId,
    ]);
  }

  /** The call ended after its disposition: the contact leaves it, its state as the disposition left it. */
  async leaveCall(campaignId: number, contactId: number, callId: string): Promise<void> {
    await this.t.run('UPDATE campaign_contacts SET in_call = NULL WHERE account_id = $1 AND campaign_id = $2 AND contact_id = $3 AND in_call = $4', [
      campaignId,
      contactId,
      callId,
    ]);
  }

  async dispose(callId: string, disposition: string, at: number, notes: string | null): Promise<void> {
    await this.t.run('UPDATE campaign_calls SET disposition = $3, disposed_at = $4, notes = $5, obd_pending = 1 WHERE account_id = $1 AND call_id = $2', [
      callId,
      disposition,
      at,
      notes,
    ]);
  }

  /** The service's own abandon (no agent within connectSecs), unless the call has an outcome (in a transaction: changeDial). */
  async markAbandoned(callId: string): Promise<void> {
    await this.changeDial(callId, "outcome = 'abandoned'", ' AND outcome IS NULL', []);
  }

  async obdShown(callId: string): Promise<void> {
    await this.t.run('UPDATE campaign_calls SET obd_pending = 0 WHERE account_id = $1 AND call_id = $2', [callId]);
  }

  /**
   * The campaign's calls in progress: lines, predictive ones without an agent
   * yet, agents reserved; and for the predictive look-ahead, when each
   * predictive call still ringing was dialled and how many were answered and
   * wait for an agent.
   */
  async inProgress(campaignId: number): Promise<{ lines: number; pendingPredictive: number; agents: number[]; ringingSince: number[]; waiting: number }> {
    const rows = await this.t.all<{
      predictive: number;
      agent_id: number | null;
      dialled_at: number;
      connected_at: number | null;
      agent_answered_at: number | null;
      outcome: string | null;
    }>(
      'SELECT predictive, agent_id, dialled_at, connected_at, agent_answered_at, outcome FROM campaign_calls WHERE account_id = $1 AND campaign_id = $2 AND ended_at IS NULL',
      [campaignId],
    );
    const pending = rows.filter((r) => Number(r.predictive) === 1 && r.agent_answered_at === null && r.outcome === null);
    return {
      lines: rows.length,
      pendingPredictive: pending.length,
      agents: rows.filter((r) => Number(r.predictive) === 0 && r.agent_id !== null).map((r) => Number(r.agent_id)),
      ringingSince: pending.filter((r) => r.connected_at === null).map((r) => Number(r.dialled_at)),
      waiting: pending.filter((r) => r.connected_at !== null).length,
    };
  }

  /** Every call in progress of the account, any campaign (a worker tick reads them once per account). */
  openCalls(): Promise<CallRow[]> {
    return this.t.all<CallRow>(`SELECT ${CALL} FROM campaign_calls WHERE account_id = $1 AND ended_at IS NULL`).then((rows) => rows.map(callRow));
  }

  /** The agents preview reservations hold now (any campaign of the account). */
  async previewHolds(now: number): Promise<number[]> {
    const rows = await this.t.all<{ reserved_by: number }>(
      'SELECT DISTINCT reserved_by FROM campaign_contacts WHERE account_id = $1 AND reserved_by IS NOT NULL AND reserved_until > $2',
      [now],
    );
    return rows.map((r) => Number(r.reserved_by));
  }

  /**
   * The campaigns' answered calls that ended by `before` without a
   * disposition, read from the contacts awaiting one (migration 271's partial
   * index: a few rows), each call then probed by its key. The call's test
   * is a correlated scalar subquery, not a JOIN or EXISTS, because
   * PostgreSQL turns those into a join it may start from the calls: before
   * planner statistics it did, reading every finished call of the account
   * (unanswered calls are never disposed) and the awaiting contacts for each
   * one, 3.5 s with 5,000 finished calls (bench/campaign-overdue.ts); a
   * subquery in the WHERE stays a per-row probe on both databases.
   */
  undisposedOf(campaignIds: readonly number[], before: number): Promise<Array<{ campaign_id: number; contact_id: number; call_id: string }>> {
    const list = inList(this.t, 'c.campaign_id', 3, campaignIds);
    return this.t
      .all<{ campaign_id: number; contact_id: number; call_id: string }>(
        `SELECT c.campaign_id, c.contact_id, c.awaiting AS call_id FROM campaign_contacts c
         WHERE c.account_id = $1 AND ${list.sql} AND c.awaiting IS NOT NULL
           AND (SELECT k.ended_at <= $2 AND k.disposition IS NULL FROM campaign_calls k WHERE k.account_id = c.account_id AND k.call_id = c.awaiting)`,
        [before, list.param],
      )
      .then((rows) => rows.map((r) => ({ campaign_id: Number(r.campaign_id), contact_id: Number(r.contact_id), call_id: r.call_id })));
  }

  /** `obdPending` of several campaigns in one read, `limit` in all. */
  obdPendingOf(
    campaignIds: readonly number[],
    limit: number,
  ): Promise<Array<{ call_id: string; number: string; outcome: string; disposition: string | null }>> {
    const list = inList(this.t, 'campaign_id', 3, campaignIds);
    return this.t.all(`SELECT call_id, number, outcome, disposition FROM campaign_calls WHERE account_id = $1 AND obd_pending = 1 AND ${list.sql} LIMIT $2`, [
      limit,
      list.param,
    ]);
  }

  /** The window of several campaigns in one read, from the counters (AbandonWindowRepository). */
  windowsOf(campaigns: ReadonlyArray<{ campaign_id: number; since: number }>): Promise<Map<number, WindowFigures>> {
    return new AbandonWindowRepository(this.t).windowsOf(campaigns);
  }

  /** Agents any campaign of the account holds now: a progressive or preview call in progress, a preview reservation. */
  async heldAgents(now: number): Promise<Set<number>> {
    const calls = await this.t.all<{ agent_id: number }>(
      'SELECT DISTINCT agent_id FROM campaign_calls WHERE account_id = $1 AND ended_at IS NULL AND predictive = 0 AND agent_id IS NOT NULL',
    );
    const previews = await this.previewHolds(now);
    return new Set([...calls.map((r) => Number(r.agent_id)), ...previews]);
  }

  /** Over the window from `since`: people who answered, and of them those abandoned (machine answers count in neither). */
  async window(campaignId: number, since: number): Promise<WindowFigures> {
    return (await this.windowsOf([{ campaign_id: campaignId, since }])).get(campaignId) ?? { humanAnswered: 0, abandoned: 0 };
  }

  /**
   * Of each campaign, the last `n` dials with a result (answered or ended),
   * newest first (ties on `dialled_at` by `call_id`, so the same rows on
   * every read): what the pacing learns the answer rate, answer delay, talk
   * and wrap-up from, as rows (the plain path: the tick reads them added up,
   * samplesOf; `sampleOf` of these rows is the reference it must equal, and
   * bench/pacing-replay.ts picks its dials in this order). Up to
   * RECENT_PER_STATEMENT campaigns a statement, one
   * `ORDER BY … LIMIT` index read each (campaign_calls_recent) joined by
   * UNION ALL: a read per predictive campaign was most of a steady tick's
   * statements. Not a window function: it would read every dial of each
   * campaign's history to number them.
   */
  async recentDialsOf(campaignIds: readonly number[], n: number): Promise<Map<number, RecentDial[]>> {
    const ids = [...new Set(campaignIds)];
    const keyed = new Map<number, Array<{ callId: string; dial: RecentDial }>>(ids.map((id) => [id, []]));
    const num = (v: unknown) => (v === null ? null : Number(v));
    for (let i = 0; i < ids.length; i += RECENT_PER_STATEMENT) {
      const chunk = ids.slice(i, i + RECENT_PER_STATEMENT);
      // Rows as arrays: up to 200 a campaign, and an object per row was most of the read's time on SQLite.
      const rows = await this.t.allValues(RECENT_DIALS_SQL[chunk.length]!, [n, ...chunk]);
      for (const [campaignId, callId, dialledAt, connectedAt, answeredBy, agentAnsweredAt, endedAt, wrapSecs] of rows)
        keyed.get(Number(campaignId))!.push({
          callId: String(callId),
          dial: {
            dialled_at: Number(dialledAt),
            connected_at: num(connectedAt),
            answered_by: answeredBy === null ? null : String(answeredBy),
            agent_answered_at: num(agentAnsweredAt),
            ended_at: num(endedAt),
            wrap_secs: Number(wrapSecs ?? 0),
          },
        });
    }
    // Each campaign's rows in its subquery's order, made certain here (a UNION ALL's is not; the rows come in it, so
    // the sort costs little): ties by call id in code-unit order, the databases' order for call ids ('obd-' and a
    // lowercase UUID) in SQLite's binary collation and, for ids of that one shape, in PostgreSQL's.
    const newestFirst = (a: { callId: string; dial: RecentDial }, b: { callId: string; dial: RecentDial }) =>
      b.dial.dialled_at - a.dial.dialled_at || (a.callId < b.callId ? 1 : a.callId > b.callId ? -1 : 0);
    return new Map([...keyed].map(([id, rows]) => [id, rows.sort(newestFirst).map((r) => r.dial)]));
  }

  /**
   * Of each campaign, what the pacing learns from its last `n` dials with a
   * result (the same dials as recentDialsOf's), added up by the database:
   * a row per (seconds to the answer or end, answered by a person), not per
   * dial. Measured on PostgreSQL with 20 predictive campaigns (bench/
   * campaign-tick.ts --predictive 20, docs/campaigns.md "The tick's cost"):
   * the 4,000 rows a tick of recentDialsOf, parsed into objects, were most
   * of what a steady tick allocated, and the collections they caused most
   * of its p95. The plain path is recentDialsOf and `sampleOf`
   * (test/integration/campaign-recent-dials.test.ts compares the two).
   */
  async samplesOf(campaignIds: readonly number[], n: number): Promise<Map<number, DialSample>> {
    const ids = [...new Set(campaignIds)];
    const builders = new Map(ids.map((id) => [id, new SampleBuilder()]));
    if (ids.length === 0) return new Map();
    const rows: unknown[][] = [];
    if (this.t.dialect === 'postgres')
      // The campaigns as one bigint[] parameter (the driver sends a JS array as one).
      rows.push(...(await this.t.allValues(SAMPLES_PG_SQL, [n, ids as unknown as Param])));
    else
      for (let i = 0; i < ids.length; i += RECENT_PER_STATEMENT) {
        const chunk = ids.slice(i, i + RECENT_PER_STATEMENT);
        rows.push(...(await this.t.allValues(SAMPLES_SQLITE_SQL[chunk.length]!, [n, ...chunk])));
      }
    for (const [campaignId, secs, human, count, talkN, talk, wrapN, wrapMs] of rows)
      builders.get(Number(campaignId))!.add(Number(secs), Number(human) === 1, Number(count), Number(talkN), Number(talk), Number(wrapN), Number(wrapMs));
    return new Map([...builders].map(([id, b]) => [id, b.done()]));
  }

  /** Contacts by state, for campaign/status and completion. */
  async contactStates(
    campaignId: number,
    now: number,
    maxAttempts: number,
  ): Promise<{ rows: number; done: number; open: number; due: number; scheduled: number; excluded: number }> {
    const row = await this.t.get<Record<string, number | null>>(
      `SELECT COUNT(*) AS n,
              SUM(CASE WHEN done = 1 THEN 1 ELSE 0 END) AS done,
              SUM(CASE WHEN done = 0 AND (attempts < $4 OR in_call IS NOT NULL OR awaiting IS NOT NULL) THEN 1 ELSE 0 END) AS open,
              SUM(CASE WHEN done = 0 AND attempts < $4 AND in_call IS NULL AND awaiting IS NULL AND next_at <= $3 THEN 1 ELSE 0 END) AS due,
              SUM(CASE WHEN done = 0 AND attempts < $4 AND in_call IS NULL AND next_at > $3 THEN 1 ELSE 0 END) AS scheduled,
              SUM(CASE WHEN done = 1 AND last_outcome = 'excluded' THEN 1 ELSE 0 END) AS excluded
       FROM campaign_contacts WHERE account_id = $1 AND campaign_id = $2`,
      [campaignId, now, maxAttempts],
    );
    const n = (k: string) => Number(row?.[k] ?? 0);
    return { rows: n('n'), done: n('done'), open: n('open'), due: n('due'), scheduled: n('scheduled'), excluded: n('excluded') };
  }
}
