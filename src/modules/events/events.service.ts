import type { AppContext } from '../../context.js';
import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';
import { AppError } from '../../errors/catalogue.js';
import type { AccountService } from '../account/account.service.js';
import type { CallHistoryService } from '../calls/call-history.service.js';
import type { CallRecord } from '../calls/call-record.js';
import { OUTBOUND_PROGRESS, parseEvent, type TelephonyEvent } from './event-types.js';
import { NO_AGENT_TIME, type AgentTimeSink } from './agent-time.js';
import { agentMessageValues, callMessageValues } from './live.types.js';
import { LiveStateRepository } from './live-state.repository.js';
import { LateCorrections } from './late-events.js';
import { LiveMachine, type EndedCall, type Takeover } from './machine.js';
import { AgentHistory, PAST_AFTER_SECS } from './agent-history.js';
import { AgentStatesRepository } from './agent-states.repository.js';
import { movesStates } from './agent-states.js';
import type { AgentLive, CallLive } from './live.types.js';
import { takeover } from './takeover.js';
import { MergingQueue, type MergeStats } from './ingest-merge.js';
import { inAmbient } from '../../db/ambient.js';
import { gatherRollups } from '../../db/rollup-write.js';

/** PostgreSQL NOTIFY channel of the stream: payload `<accountId>:<seq>`. */
export const CHANGES_CHANNEL = 'live_changes';
/** The change log keeps the groups of this many most recent sequence numbers per account. */
export const CHANGE_LOG_SPAN = 100_000;

/** The times a batch's events name agents and calls at: which agents' history to load. */
interface BatchTimes {
  /** Per agent named: the earliest `ts` of its events, the latest so far, and whether one came after a later one by more than a reordering. */
  agents: Map<number, { min: number; max: number; backwards: boolean }>;
  calls: Map<string, number>;
  max: number;
}

function batchTimes(events: TelephonyEvent[]): BatchTimes {
  const out: BatchTimes = { agents: new Map(), calls: new Map(), max: 0 };
  for (const e of events) {
    if (e.agentId !== undefined) {
      const a = out.agents.get(e.agentId);
      out.agents.set(e.agentId, {
        min: Math.min(e.ts, a?.min ?? e.ts),
        max: Math.max(e.ts, a?.max ?? e.ts),
        backwards: (a?.backwards ?? false) || (a !== undefined && e.ts < a.max - PAST_AFTER_SECS),
      });
    }
    if (e.callId !== undefined) out.calls.set(e.callId, Math.min(e.ts, out.calls.get(e.callId) ?? e.ts));
    out.max = Math.max(out.max, e.ts);
  }
  return out;
}

/**
 * The agents whose history the batch may need, from when: those named
 * earlier than their live state by more than a reordering, and those of a
 * live call their live row is not on (a call in the agent's past).
 */
function historyWanted(times: BatchTimes, agents: Map<number, AgentLive | null>, calls: Map<string, CallLive>): Map<number, { from: number; to: number }> {
  const want = new Map<number, { from: number; to: number }>();
  const add = (agentId: number, from: number) => {
    const w = want.get(agentId);
    want.set(agentId, { from: Math.min(from, w?.from ?? from), to: times.max });
  };
  for (const [agentId, { min, backwards }] of times.agents) {
    // Past for the live row as loaded, or for the live row once the batch's own earlier events moved it (no row yet: time 0).
    if (agents.has(agentId) && (backwards || min < (agents.get(agentId)?.lastTs ?? 0) - PAST_AFTER_SECS)) add(agentId, min);
  }
  for (const [callId, from] of times.calls) {
    const c = calls.get(callId);
    for (const agentId of [c?.agentId, c?.ringAgent]) {
      const a = agentId !== null && agentId !== undefined ? agents.get(agentId) : undefined;
      if (a && a.ringCall !== callId && a.callId !== callId) add(a.agentId, from);
    }
  }
  return want;
}

/**
 * Who follows outbound campaign calls (the campaign dialer, PRODUCT.md §13):
 * it sees, in the batch's transaction, every accepted event of a call id it
 * owns — the progress events `call.dialing` / `call.connected`, which change
 * no live state, and the `call.ended` of a dial that never reached the queue,
 * which only it knows.
 */
export interface OutboundObserver {
  /** Whether the call id is one of the observer's (a prefix test: this runs for every call event). */
  owns(callId: string): boolean;
  /** `unqueued`: the calls among them whose `call.ended` the queue never saw (the observer records them). */
  observe(tx: Queryable, accountId: number, events: TelephonyEvent[], unqueued: ReadonlySet<string>): Promise<void>;
  /** Fills a campaign call's `call.queued` with what the switch left out (`campaignId`, `retryOf`) before it is applied. */
  complete(tx: Queryable, accountId: number, queued: TelephonyEvent[]): Promise<void>;
}

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

/** A request's events, parsed: the valid ones, and its answer so far (the events refused by parsing). */
interface ParsedBatch {
  parsed: Array<TelephonyEvent | null>;
  valid: TelephonyEvent[];
  result: IngestResult;
}

function parseBatch(raw: unknown[]): ParsedBatch {
  const result: IngestResult = { accepted: 0, duplicates: 0, errors: [] };
  const parsed: Array<TelephonyEvent | null> = raw.map((r, index) => {
    const p = parseEvent(r);
    if (Array.isArray(p)) {
      result.errors.push({ index, code: p[0], message: p[1] });
      return null;
    }
    return p;
  });
  return { parsed, valid: parsed.filter((e): e is TelephonyEvent => e !== null), result };
}

/** The most events one merged transaction applies (twice the largest request: a round's latency stays bounded). */
export const MERGE_MAX_EVENTS = 2_000;

export interface EventsServiceDeps {
  ctx: AppContext;
  accounts: AccountService;
  history: CallHistoryService;
  agentTime?: AgentTimeSink;
  outbound?: OutboundObserver;
}

/**
 * events/ingest and every other change of live state (takeover): one
 * transaction per batch, the account's sequence row locked first, the rows
 * the batch touches loaded at once, the state machines run in memory, the
 * changed rows written back set-at-a-time, then NOTIFY for the stream.
 */
export class EventsService {
  private readonly ctx: AppContext;
  private readonly accounts: AccountService;
  private readonly history: CallHistoryService;
  private readonly agentTime: AgentTimeSink;
  /** Campaign calls' outcomes (the campaign module's observer), in the ingest transaction. */
  private readonly outbound: OutboundObserver | null;
  private readonly merging: MergingQueue<ParsedBatch, IngestResult>;

  constructor(deps: EventsServiceDeps) {
    this.ctx = deps.ctx;
    this.outbound = deps.outbound ?? null;
    this.accounts = deps.accounts;
    this.history = deps.history;
    this.agentTime = deps.agentTime ?? NO_AGENT_TIME;
    this.merging = new MergingQueue(
      (accountId, batches) => this.applyBatches(accountId, batches),
      (b) => b.valid.length,
      MERGE_MAX_EVENTS,
    );
  }

  /**
   * events/ingest: the batch is parsed here; batches of the account that
   * arrive while its previous ingest runs are applied with it in one
   * transaction (ingest-merge.ts), each answered on its own.
   */
  async ingest(accountId: number, raw: unknown[]): Promise<IngestResult> {
    const batch = parseBatch(raw);
    if (batch.valid.length === 0) return batch.result;
    // Inside a caller's transaction (none today) the batch is part of it: nothing to merge with.
    if (inAmbient()) return (await this.applyBatches(accountId, [batch]))[0]!;
    return this.merging.run(accountId, batch);
  }

  /** How many transactions applied how many requests' batches (`callcenter_ingest_*_total`). */
  get mergeStats(): Readonly<MergeStats> {
    return this.merging.stats;
  }

  /** Applies the batches in order, as one batch of all their events, in one transaction; one answer per batch. */
  private async applyBatches(accountId: number, batches: ParsedBatch[]): Promise<IngestResult[]> {
    const results = batches.map((b) => ({ ...b.result, errors: [...b.result.errors] }));
    const valid = batches.length === 1 ? batches[0]!.valid : batches.flatMap((b) => b.valid);
    const callIds = [...new Set(valid.map((e) => e.callId).filter((c): c is string => c !== undefined))];
    const groupIds = [...new Set(valid.map((e) => e.groupId).filter((g): g is number => g !== undefined))];
    const agentIds = new Set(valid.map((e) => e.agentId).filter((a): a is number => a !== undefined));

    const missed = [...new Set(valid.filter((e) => e.type === 'call.missed').map((e) => e.callId!))];
    const paths = [...new Set(valid.filter((e) => e.type === 'call.recording').map((e) => e.path!))];
    const outbound = this.outbound;
    await this.inBatch(accountId, callIds, agentIds, groupIds, missed, paths, batchTimes(valid), async (machine, repo, nextSeq, tx) => {
      const known = await repo.knownEventIds([...new Set(valid.map((e) => e.eventId))]);
      if (outbound !== null) {
        // A campaign call queued without its campaign or previous attempt: the dialer knows both (one read, campaign calls only).
        const queued = valid.filter(
          (e) => e.type === 'call.queued' && e.callId !== undefined && outbound.owns(e.callId) && (e.campaignId === undefined || e.retryOf === undefined),
        );
        if (queued.length > 0) await outbound.complete(tx, accountId, queued);
      }
      const unqueued = new Set<string>();
      const remembered: Array<{ event_id: string; seq: number }> = [];
      const observed: TelephonyEvent[] = [];
      let seq = nextSeq;
      for (let b = 0; b < batches.length; b++) {
        const { parsed } = batches[b]!;
        const result = results[b]!;
        for (let index = 0; index < parsed.length; index++) {
          const ev = parsed[index];
          if (!ev) continue;
          if (known.has(ev.eventId)) {
            result.duplicates++;
            continue;
          }
          const owned = outbound !== null && ev.callId !== undefined && outbound.owns(ev.callId);
          // Outbound progress, and the end of a dial the queue never saw, are the observer's alone.
          const observerOnly = OUTBOUND_PROGRESS.has(ev.type) || (owned && ev.type === 'call.ended' && !machine.knows(ev.callId!));
          const rejected = observerOnly
            ? owned
              ? null
              : ([1012, `No data found: call ${ev.callId} is not a campaign call`] as [number, string])
            : machine.apply(ev, seq);
          if (rejected) {
            result.errors.push({ index, code: rejected[0], message: rejected[1] });
            continue;
          }
          known.add(ev.eventId);
          if (owned) observed.push(ev);
          if (observerOnly) {
            if (ev.type === 'call.ended') unqueued.add(ev.callId!);
            // Remembered (duplicates are refused) without a sequence number of its own: no live state changed.
            remembered.push({ event_id: ev.eventId, seq: Math.max(0, seq - 1) });
            result.accepted++;
            continue;
          }
          remembered.push({ event_id: ev.eventId, seq });
          seq++;
          result.accepted++;
        }
      }
      await repo.rememberEventIds(remembered);
      if (observed.length > 0) {
        await outbound!.observe(tx, accountId, observed, unqueued);
        // Campaign figures moved, maybe without a sequence number: views cached under the sequence look again.
        await repo.markOutbound();
      }
      return seq - 1;
    });
    for (const r of results) r.errors.sort((a, b) => a.index - b.index);
    return results;
  }

  /** Moves a live call to agent `to` (queue/callTakeover); throws the rejection as an API error. */
  async takeover(accountId: number, callId: string, to: number): Promise<Takeover> {
    let out: Takeover | undefined;
    await this.inBatch(accountId, [callId], new Set([to]), [], [], [], null, async (machine, _repo, nextSeq) => {
      const r = takeover(machine, callId, to, this.ctx.clock.now() / 1000, nextSeq);
      if (Array.isArray(r)) throw new AppError(r[0], r[1]);
      out = r;
      return nextSeq;
    });
    return out!;
  }

  /** The dialer changed campaign calls outside an ingest (its own abandon, a silent call ended): see migration 146. */
  async markOutbound(accountId: number): Promise<void> {
    await new LiveStateRepository(tenant(this.ctx.db, accountId)).markOutbound();
  }

  /**
   * Pushes a command for the switch (`call.originate`) on the account's stream as a change group of its
   * own: its sequence number is taken under the account's lock like every change, so it is ordered with
   * them and a connector resumes it with Last-Event-ID. `alsoInTx` writes the caller's rows in the same
   * transaction (the originated call), so the command exists exactly when they do. Answers the sequence.
   */
  async pushCommand(accountId: number, event: string, data: Record<string, unknown>, alsoInTx?: (tx: Queryable) => Promise<void>): Promise<number> {
    const { seqs } = await this.pushCommands(accountId, event, async (tx, lock) => {
      await lock();
      if (alsoInTx) await alsoInTx(tx);
      return { commands: [data], result: undefined };
    });
    return seqs[0]!;
  }

  /**
   * Pushes several commands of one kind in one transaction, each still a change group of its own with
   * its own sequence number, as pushCommand would (connectors key a command on its `seq` and resume
   * after a group's id). `work` runs in the transaction: what it reads before calling `lock()` runs
   * without the account's lock (other batches and dials of the account go on meanwhile); `lock()`
   * takes it for the rest of the transaction, before what must be ordered with them. `work` answers
   * the commands (written after its rows, in the same transaction) and its result; a `work` that
   * throws rolls everything back. No command: nothing is pushed, and what `work` wrote commits.
   */
  async pushCommands<T>(
    accountId: number,
    event: string,
    work: (tx: Queryable, lock: () => Promise<void>) => Promise<{ commands: ReadonlyArray<Record<string, unknown>>; result: T }>,
  ): Promise<{ result: T; seqs: number[] }> {
    const seqs: number[] = [];
    const result = await this.ctx.db.transaction(async (tx) => {
      const repo = new LiveStateRepository(tenant(tx, accountId));
      // The account's sequence once locked (the lock is held until the transaction ends).
      let locked: Promise<number> | null = null;
      const lock = () => (locked ??= repo.lockSequence());
      const out = await work(tx, async () => {
        await lock();
      });
      if (out.commands.length === 0) return out.result;
      const base = await lock();
      const groups = out.commands.map((data, i) => {
        const seq = base + 1 + i;
        seqs.push(seq);
        return { seq, body: JSON.stringify([[event, { ...data, seq }]]) };
      });
      const last = seqs[seqs.length - 1]!;
      await repo.setSequence(last);
      if (groups.length === 1) await repo.appendChange(last, 1, groups[0]!.body, last - CHANGE_LOG_SPAN);
      else await repo.appendChanges(groups, last - CHANGE_LOG_SPAN);
      return out.result;
    });
    if (seqs.length > 0) {
      const last = seqs[seqs.length - 1]!;
      await this.ctx.db.notify(CHANGES_CHANNEL, `${accountId}:${last}`).catch((err: unknown) => this.ctx.log.warn({ err }, 'notify failed'));
    }
    return { result, seqs };
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
    /** The batch's event times (null: a live command, no history needed). */
    times: BatchTimes | null,
    fn: (machine: LiveMachine, repo: LiveStateRepository, nextSeq: number, tx: Queryable) => Promise<number>,
  ): Promise<void> {
    const { timezone } = await this.accounts.settings(accountId);
    let notifySeq = 0;
    await this.ctx.db.transaction(async (tx) => {
      const repo = new LiveStateRepository(tenant(tx, accountId));
      const states = new AgentStatesRepository(tenant(tx, accountId));
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
      const history = new AgentHistory(times ? await states.history(historyWanted(times, agents, calls)) : new Map());
      const foreign = await this.history.pathsOfOtherAccounts(tx, accountId, recordingPaths);
      const machine = new LiveMachine(timezone, agents, calls, ended, groups, new LateCorrections(stored), history, foreign);
      const last = await fn(machine, repo, base + 1, tx);
      if (last <= base) return;
      await repo.customPlansEnd();
      // The roll-up writers called below add to one pending roll-up each (the report's: the finished
      // calls' and the agent spans' shared report_agent rows), written once before the commit.
      await gatherRollups(tx, async () => {
        await this.persist(tx, accountId, repo, states, machine, base + 1, last);
        for (const { old, next } of machine.late.changed.values()) await this.history.replace(tx, accountId, old, next);
      });
      notifySeq = last;
    });
    if (notifySeq > 0) {
      await this.ctx.db.notify(CHANGES_CHANNEL, `${accountId}:${notifySeq}`).catch((err: unknown) => this.ctx.log.warn({ err }, 'notify failed'));
    }
  }

  private async persist(
    tx: Queryable,
    accountId: number,
    repo: LiveStateRepository,
    states: AgentStatesRepository,
    m: LiveMachine,
    first: number,
    last: number,
  ): Promise<void> {
    await repo.saveAgents([...m.dirtyAgents.values()]);
    await states.saveRecent([...m.history.written.values()]);
    if (movesStates(first, last)) await states.moveRecent();
    await repo.saveCalls([...m.dirtyCalls.values()]);
    await repo.deleteCalls(m.ended.map((e) => e.call.callId));
    await this.history.record(
      tx,
      accountId,
      m.ended.map((e) => toRecord(accountId, e)),
    );
    await this.history.addRecordings(tx, accountId, m.recordings);
    if (m.spans.length > 0) await this.agentTime.apply(tx, accountId, m.spans);
    await repo.setSequence(last);
    const messages: Array<[string, unknown]> = [];
    // Agents and calls as their messages' values (live.types.ts says why); the stream sends the objects.
    for (const a of m.dirtyAgents.values()) messages.push(['agent', agentMessageValues(a)]);
    for (const c of m.dirtyCalls.values()) messages.push(['call', callMessageValues(c)]);
    for (const e of m.ended) messages.push(['call', callMessageValues(e.call, { endedAt: e.endedAt, outcome: e.outcome })]);
    for (const t of m.takeovers) messages.push(['call.takeover', t]);
    await repo.appendChange(last, last - first + 1, JSON.stringify(messages), last - CHANGE_LOG_SPAN);
  }
}
