import type { AppContext } from '../../context.js';
import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';
import { AppError } from '../../errors/catalogue.js';
import type { AccountService } from '../account/account.service.js';
import type { CallHistoryService } from '../calls/call-history.service.js';
import type { CallRecord } from '../calls/call-record.js';
import { parseEvent, type TelephonyEvent } from './event-types.js';
import { agentMessage, callMessage } from './live.types.js';
import { LiveStateRepository } from './live-state.repository.js';
import { LateCorrections } from './late-events.js';
import { LiveMachine, type EndedCall, type Takeover } from './machine.js';
import { takeover } from './takeover.js';

/** PostgreSQL NOTIFY channel of the stream: payload `<accountId>:<seq>`. */
export const CHANGES_CHANNEL = 'live_changes';
/** The change log keeps the groups of this many most recent sequence numbers per account. */
export const CHANGE_LOG_SPAN = 100_000;

export interface IngestResult {
  accepted: number;
  duplicates: number;
  errors: Array<{ index: number; code: number; message: string }>;
}

function toRecord(accountId: number, e: EndedCall): CallRecord {
  const c = e.call;
  return {
    accountId,
    callId: c.callId,
    queuedAt: c.queuedAt,
    endedAt: e.endedAt,
    groupId: c.groupId,
    did: c.did,
    campaignId: c.campaignId,
    direction: c.direction,
    caller: c.caller,
    retryOf: c.retryOf,
    answeredBy: c.agentId,
    answeredAt: c.answeredAt,
    talkSecs: c.answeredAt !== null ? Math.max(0, e.endedAt - c.answeredAt) : 0,
    holdSecs: c.holdSecs,
    waitSecs: Math.max(0, (c.answeredAt ?? e.endedAt) - c.queuedAt),
    outcome: e.outcome,
    hits: c.hits.map(([agentId, ringAt, ringSecs, answered], seq) => ({ seq, agentId, ringAt, ringSecs: ringSecs ?? 0, answered: answered === 1 })),
    endReason: e.reason,
    legs: c.legs.map(([agentId, hit, at, until, holdSecs], seq) => ({
      seq,
      agentId,
      hitSeq: hit >= 0 ? hit : null,
      answerAt: at,
      answerEnd: until ?? e.endedAt,
      holdSecs,
    })),
  };
}

/**
 * events/ingest and every other change of live state (takeover): one
 * transaction per batch, the account's sequence row locked first, the rows
 * the batch touches loaded at once, the state machines run in memory, the
 * changed rows written back set-at-a-time, then NOTIFY for the stream.
 */
export class EventsService {
  private readonly accounts: AccountService;
  private readonly history: CallHistoryService;

  constructor(
    private readonly ctx: AppContext,
    deps: { accounts: AccountService; history: CallHistoryService },
  ) {
    this.accounts = deps.accounts;
    this.history = deps.history;
  }

  async ingest(accountId: number, raw: unknown[]): Promise<IngestResult> {
    const result: IngestResult = { accepted: 0, duplicates: 0, errors: [] };
    const parsed: Array<TelephonyEvent | null> = raw.map((r, index) => {
      const p = parseEvent(r);
      if (Array.isArray(p)) {
        result.errors.push({ index, code: p[0], message: p[1] });
        return null;
      }
      return p;
    });
    const valid = parsed.filter((e): e is TelephonyEvent => e !== null);
    if (valid.length === 0) return result;
    const callIds = [...new Set(valid.map((e) => e.callId).filter((c): c is string => c !== undefined))];
    const groupIds = [...new Set(valid.map((e) => e.groupId).filter((g): g is number => g !== undefined))];
    const agentIds = new Set(valid.map((e) => e.agentId).filter((a): a is number => a !== undefined));

    const missed = [...new Set(valid.filter((e) => e.type === 'call.missed').map((e) => e.callId!))];
    const paths = [...new Set(valid.filter((e) => e.type === 'call.recording').map((e) => e.path!))];
    await this.inBatch(accountId, callIds, agentIds, groupIds, missed, paths, async (machine, repo, nextSeq) => {
      const known = await repo.knownEventIds([...new Set(valid.map((e) => e.eventId))]);
      const remembered: Array<{ event_id: string; seq: number }> = [];
      let seq = nextSeq;
      for (let index = 0; index < parsed.length; index++) {
        const ev = parsed[index];
        if (!ev) continue;
        if (known.has(ev.eventId)) {
          result.duplicates++;
          continue;
        }
        const rejected = machine.apply(ev, seq);
        if (rejected) {
          result.errors.push({ index, code: rejected[0], message: rejected[1] });
          continue;
        }
        known.add(ev.eventId);
        remembered.push({ event_id: ev.eventId, seq });
        seq++;
        result.accepted++;
      }
      await repo.rememberEventIds(remembered);
      return seq - 1;
    });
    result.errors.sort((a, b) => a.index - b.index);
    return result;
  }

  /** Moves a live call to agent `to` (queue/callTakeover); throws the rejection as an API error. */
  async takeover(accountId: number, callId: string, to: number): Promise<Takeover> {
    let out: Takeover | undefined;
    await this.inBatch(accountId, [callId], new Set([to]), [], [], [], async (machine, _repo, nextSeq) => {
      const r = takeover(machine, callId, to, this.ctx.clock.now() / 1000, nextSeq);
      if (Array.isArray(r)) throw new AppError(r[0], r[1]);
      out = r;
      return nextSeq;
    });
    return out!;
  }

  /**
   * Runs `fn` over the batch's working set in one transaction; `fn` applies
   * changes to the machine and answers the last sequence number it used
   * (nextSeq - 1 when it applied nothing).
   */
  private async inBatch(
    accountId: number,
    callIds: string[],
    agentIds: Set<number>,
    groupIds: number[],
    /** Calls named by call.missed events: finished ones are loaded for late corrections. */
    missed: string[],
    /** Paths named by call.recording events: those another account reported are refused. */
    recordingPaths: string[],
    fn: (machine: LiveMachine, repo: LiveStateRepository, nextSeq: number) => Promise<number>,
  ): Promise<void> {
    const { timezone } = await this.accounts.settings(accountId);
    let notifySeq = 0;
    await this.ctx.db.transaction(async (tx) => {
      const repo = new LiveStateRepository(tenant(tx, accountId));
      const base = await repo.lockSequence();
      const { calls, ended } = await repo.callsAndEnded(callIds);
      for (const c of calls.values()) {
        if (c.agentId !== null) agentIds.add(c.agentId);
        if (c.ringAgent !== null) agentIds.add(c.ringAgent);
      }
      const agents = await repo.agents([...agentIds]);
      const groups = await repo.existingGroups(groupIds);
      const stored = await this.history.load(
        tx,
        accountId,
        missed.filter((id) => ended.has(id)),
      );
      const foreign = await this.history.pathsOfOtherAccounts(tx, accountId, recordingPaths);
      const machine = new LiveMachine(timezone, agents, calls, ended, groups, new LateCorrections(stored), foreign);
      const last = await fn(machine, repo, base + 1);
      if (last <= base) return;
      await this.persist(tx, accountId, repo, machine, base + 1, last);
      for (const { old, next } of machine.late.changed.values()) await this.history.replace(tx, accountId, old, next);
      notifySeq = last;
    });
    if (notifySeq > 0) {
      await this.ctx.db.notify(CHANGES_CHANNEL, `${accountId}:${notifySeq}`).catch((err: unknown) => this.ctx.log.warn({ err }, 'notify failed'));
    }
  }

  private async persist(tx: Queryable, accountId: number, repo: LiveStateRepository, m: LiveMachine, first: number, last: number): Promise<void> {
    await repo.saveAgents([...m.dirtyAgents.values()]);
    await repo.saveCalls([...m.dirtyCalls.values()]);
    await repo.deleteCalls(m.ended.map((e) => e.call.callId));
    await this.history.record(
      tx,
      accountId,
      m.ended.map((e) => toRecord(accountId, e)),
    );
    await this.history.addRecordings(tx, accountId, m.recordings);
    await repo.setSequence(last);
    const messages: Array<[string, unknown]> = [];
    for (const a of m.dirtyAgents.values()) messages.push(['agent', agentMessage(a)]);
    for (const c of m.dirtyCalls.values()) messages.push(['call', callMessage(c)]);
    for (const e of m.ended) messages.push(['call', callMessage(e.call, { endedAt: e.endedAt, outcome: e.outcome })]);
    for (const t of m.takeovers) messages.push(['call.takeover', t]);
    await repo.appendChange(last, last - first + 1, JSON.stringify(messages), last - CHANGE_LOG_SPAN);
  }
}
