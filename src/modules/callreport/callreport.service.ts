import type { Queryable } from '../../db/types.js';
import type { AccountService } from '../account/account.service.js';
import type { AgentService } from '../agent/agent.service.js';
import type { CallHistoryService } from '../calls/call-history.service.js';
import type { CallPageFilter } from '../calls/call-record.js';
import { buildReport, type PushReport } from './report.js';

export interface CallReportDeps {
  accounts: AccountService;
  agents: AgentService;
  history: CallHistoryService;
}

/**
 * Call reports (PRODUCT.md §9) from the call history: one finished call →
 * its push report. Read-only; `q` is the caller's transaction (the webhook
 * outbox builds the report in the transaction that applies `call.ended`) or
 * null for the database.
 */
export class CallReportService {
  constructor(private readonly deps: CallReportDeps) {}

  /** The report of one finished call, or undefined when the call has not ended (or does not exist). */
  async report(q: Queryable | null, accountId: number, callId: string): Promise<PushReport | undefined> {
    const [one] = await this.reports(q, accountId, [callId]);
    return one;
  }

  /** Reports of finished calls, in the order of `callIds`; unknown or live calls are left out. */
  async reports(q: Queryable | null, accountId: number, callIds: readonly string[]): Promise<PushReport[]> {
    if (callIds.length === 0) return [];
    const { timezone } = await this.deps.accounts.settings(accountId);
    const calls = await this.deps.history.withRecordings(q, accountId, [...new Set(callIds)]);
    const agentIds = new Set<number>();
    for (const { record } of calls) {
      for (const h of record.hits) agentIds.add(h.agentId);
      for (const l of record.legs ?? []) agentIds.add(l.agentId);
      if (record.answeredBy !== null) agentIds.add(record.answeredBy);
    }
    const phones = await this.deps.agents.phones(accountId, [...agentIds], q ?? undefined);
    return calls.map(({ record, recordings }) => buildReport({ accountId, timezone, record, recordings, phones }));
  }

  /** One page of reports, newest queued first; `next` is the last row's sort key when the page is full. */
  async page(accountId: number, filter: CallPageFilter): Promise<{ reports: PushReport[]; next: { queuedAt: number; callId: string } | null }> {
    const rows = await this.deps.history.page(null, accountId, filter);
    const reports = await this.reports(
      null,
      accountId,
      rows.map((r) => r.call_id),
    );
    const last = rows[rows.length - 1];
    return { reports, next: rows.length === filter.limit && last ? { queuedAt: last.queued_at, callId: last.call_id } : null };
  }
}
