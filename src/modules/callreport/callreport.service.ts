import type { Clock } from '../../clock.js';
import type { Queryable } from '../../db/types.js';
import { fail } from '../../errors/catalogue.js';
import { wallToUtc } from '../../time/zone.js';
import type { AccountService } from '../account/account.service.js';
import type { AgentService } from '../agent/agent.service.js';
import { parseDateEnd } from '../../time/date-end.js';
import type { CallHistoryService } from '../calls/call-history.service.js';
import type { CallPageFilter } from '../calls/call-record.js';
import { CALL_TYPES, kindsOf, type CallType } from './call-type.js';
import { findRecording, type RecordingFile } from './recording-files.js';
import { RecordingTokens } from './recording-token.js';
import { buildReport, type PushReport } from './report.js';

/** What the campaign module tells of its calls' reports (modules/campaign/obd-report.ts). */
export interface ObdPort {
  facts(
    q: Queryable,
    accountId: number,
    callIds: readonly string[],
  ): Promise<Map<string, Pick<PushReport, 'campId' | 'callDisposition' | 'retryOf'> & { contactListData: NonNullable<PushReport['contactListData']> | null }>>;
}

export interface CallReportDeps {
  db: Queryable;
  clock: Clock;
  recordingsDir: string;
  accounts: AccountService;
  agents: AgentService;
  history: CallHistoryService;
  /** Campaign calls' facts, from the campaign module (absent: no call is a campaign call's). */
  obd?: ObdPort;
}

/** CallReport/list's filters as sent (also the export's query parameters). */
export interface ReportListInput {
  from?: string | number;
  to?: string | number;
  agentId?: string | number;
  groupId?: string | number;
  did?: string | number;
  caller?: string | number;
  callStatus?: string | number;
  cType?: string | string[];
  cursor?: string;
  limit?: string | number;
}

export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 1000;
/** Calls per page the export reads: bounds its memory whatever the number of calls. */
const EXPORT_PAGE = 250;

type After = CallPageFilter['after'];

function cursorOf(after: NonNullable<After>): string {
  return Buffer.from(JSON.stringify([after.queuedAt, after.callId])).toString('base64url');
}

function afterOf(cursor: string): After {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' && Number.isFinite(v[0]) && typeof v[1] === 'string')
      return { queuedAt: v[0], callId: v[1] };
  } catch {
    // fall through
  }
  throw fail(1000, 'cursor: use the nextCursor of the previous page');
}

function positiveId(v: string | number | undefined, name: string): number | undefined {
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw fail(1000, name);
  return n;
}

/**
 * Call reports (PRODUCT.md §9) from the call history: one finished call →
 * its push report. Read-only; `q` is the caller's transaction (the webhook
 * outbox builds the report in the transaction that applies `call.ended`) or
 * null for the database.
 */
export class CallReportService {
  readonly tokens: RecordingTokens;
  /** Campaign calls' facts (PRODUCT.md §13: campId, callDisposition, retryOf, contactListData). */
  private readonly obd: ObdPort | null;

  constructor(private readonly deps: CallReportDeps) {
    this.tokens = new RecordingTokens(deps.db);
    this.obd = deps.obd ?? null;
  }

  /** The report of one finished call, or undefined when the call has not ended (or does not exist). */
  async report(q: Queryable | null, accountId: number, callId: string): Promise<PushReport | undefined> {
    const [one] = await this.reports(q, accountId, [callId]);
    return one;
  }

  /** Reports of finished calls, in the order of `callIds`; unknown or live calls are left out. */
  async reports(q: Queryable | null, accountId: number, callIds: readonly string[]): Promise<PushReport[]> {
    if (callIds.length === 0) return [];
    // Inside the caller's transaction when there is one: on SQLite a read outside it would wait for it to end.
    const { timezone } = await this.deps.accounts.settings(accountId, q ?? undefined);
    return this.reportsIn(q, accountId, timezone, callIds);
  }

  private async reportsIn(q: Queryable | null, accountId: number, timezone: string, callIds: readonly string[]): Promise<PushReport[]> {
    const calls = await this.deps.history.withRecordings(q, accountId, [...new Set(callIds)]);
    const agentIds = new Set<number>();
    for (const { record } of calls) {
      for (const h of record.hits) agentIds.add(h.agentId);
      for (const l of record.legs ?? []) agentIds.add(l.agentId);
      if (record.answeredBy !== null) agentIds.add(record.answeredBy);
    }
    const phones = await this.deps.agents.phones(accountId, [...agentIds], q ?? undefined);
    const reports = calls.map(({ record, recordings }) => buildReport({ accountId, timezone, record, recordings, phones }));
    if (this.obd) {
      const facts = await this.obd.facts(
        q ?? this.deps.db,
        accountId,
        reports.map((r) => r.callId),
      );
      for (const r of reports) {
        const f = facts.get(r.callId);
        if (f) Object.assign(r, f);
      }
    }
    return reports;
  }

  /** One page of reports, newest queued first; `next` is the last row's sort key when the page is full. */
  async page(accountId: number, filter: CallPageFilter): Promise<{ reports: PushReport[]; next: { queuedAt: number; callId: string } | null }> {
    const { timezone } = await this.deps.accounts.settings(accountId);
    return this.pageIn(accountId, timezone, filter);
  }

  private async pageIn(accountId: number, timezone: string, filter: CallPageFilter) {
    const rows = await this.deps.history.page(null, accountId, filter);
    const reports = await this.reportsIn(
      null,
      accountId,
      timezone,
      rows.map((r) => r.call_id),
    );
    const last = rows[rows.length - 1];
    return { reports, next: rows.length === filter.limit && last ? { queuedAt: last.queued_at, callId: last.call_id } : null };
  }

  /** CallReport/list's filters → a page filter (1000 / 1001 for a bad one). */
  filterOf(input: ReportListInput, timezone: string, limit: number): CallPageFilter {
    const f: CallPageFilter = { limit };
    const date = (v: string | number | undefined, end: 'from' | 'to') =>
      v === undefined || v === '' ? undefined : wallToUtc(timezone, parseDateEnd(String(v), timezone, end));
    f.from = date(input.from, 'from');
    f.to = date(input.to, 'to');
    f.agentId = positiveId(input.agentId, 'agentId');
    f.groupId = positiveId(input.groupId, 'groupId');
    if (input.did !== undefined && input.did !== '') f.did = String(input.did).trim();
    if (input.caller !== undefined && input.caller !== '') {
      const s = String(input.caller);
      f.caller = s.replace(/\D/g, '') || s;
    }
    if (input.callStatus !== undefined && input.callStatus !== '') {
      const s = Number(input.callStatus);
      if (s !== 0 && s !== 1 && s !== 2 && s !== 3) throw fail(1000, 'callStatus: 0, 1, 2 or 3');
      f.status = s;
    }
    if (input.cType !== undefined) {
      const list = (Array.isArray(input.cType) ? input.cType : String(input.cType).split(',')).map((s) => s.trim().toUpperCase()).filter((s) => s !== '');
      if (!list.every((t): t is CallType => (CALL_TYPES as readonly string[]).includes(t))) throw fail(1000, `cType: ${CALL_TYPES.join(', ')}`);
      if (list.length > 0) f.kinds = kindsOf(list);
    }
    if (input.cursor !== undefined && input.cursor !== '') f.after = afterOf(input.cursor);
    return f;
  }

  /** CallReport/list: a page of reports and the cursor of the next (null at the end). */
  async list(accountId: number, input: ReportListInput): Promise<{ data: PushReport[]; nextCursor: string | null }> {
    const limit = input.limit === undefined || input.limit === '' ? LIST_LIMIT_DEFAULT : Number(input.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > LIST_LIMIT_MAX) throw fail(1000, `limit: 1 to ${LIST_LIMIT_MAX}`);
    const { timezone } = await this.deps.accounts.settings(accountId);
    const { reports, next } = await this.pageIn(accountId, timezone, this.filterOf(input, timezone, limit));
    return { data: reports, nextCursor: next ? cursorOf(next) : null };
  }

  /** Every matching report, a page at a time (the CSV export): memory stays that of one page. */
  async *all(accountId: number, input: ReportListInput): AsyncGenerator<PushReport[]> {
    const { timezone } = await this.deps.accounts.settings(accountId);
    const filter = this.filterOf({ ...input, cursor: undefined }, timezone, EXPORT_PAGE);
    for (;;) {
      const { reports, next } = await this.pageIn(accountId, timezone, filter);
      if (reports.length > 0) yield reports;
      if (!next) return;
      filter.after = next;
    }
  }

  /** CallReport/detail: the report, and with `rcrd` the recordings' directstream references. 1012 for an unknown call. */
  async detail(accountId: number, callId: string, withRecordings: boolean): Promise<PushReport & { rcrdAr?: Array<{ ndId: string | null; rcrd: string }> }> {
    const report = await this.report(null, accountId, callId);
    if (!report) throw fail(1012, `call ${callId}`);
    if (!withRecordings) return report;
    const now = this.deps.clock.now() / 1000;
    const rcrdAr = await Promise.all(
      report.recordings.map(async (r) => ({ ndId: r.nodeid, rcrd: `${await this.tokens.sign(r.file, now)}*${r.file.split('/').join('*')}` })),
    );
    return { ...report, rcrdAr };
  }

  /** Whether a directstream token was signed for `relative` in the last 24 h (the link's credential, checked by the admission). */
  async recordingLinkValid(token: string, relative: string): Promise<boolean> {
    return this.tokens.verify(token, relative, this.deps.clock.now() / 1000);
  }

  /** A recording to serve (its link already checked), null for no such file. */
  async recording(relative: string): Promise<RecordingFile | null> {
    return findRecording(this.deps.recordingsDir, relative);
  }
}
