import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import { tenant } from '../../db/tenant.js';
import type { Database, Queryable } from '../../db/types.js';
import type { AccountService } from '../account/account.service.js';
import type { AgentService } from '../agent/agent.service.js';
import type { BlacklistService } from '../directory/blacklist.service.js';
import type { ContactService } from '../directory/contact.service.js';
import type { DncService } from '../directory/dnc.service.js';
import type { EventsService } from '../events/events.service.js';
import type { LiveStateService } from '../events/live-state.service.js';
import { isAvailable, type AgentLive } from '../events/live.types.js';
import { windowSecs } from './campaign-settings.js';
import { CampaignRepository } from './campaign.repository.js';
import { campaignOf, type Campaign } from './campaign.service.js';
import { verdictOf, type NumberFacts } from './compliance.js';
import type { ContactListsPort, ListContact } from './contact-lists.port.js';
import { dialBatch, type AgentSlots, type Skip } from './dial-batch.js';
import { sampleOf, type DialSample } from './dial-sample.js';
import { DialerRepository, type AttemptRow, type CallRow } from './dialer.repository.js';
import { afterOutcome, DISPOSITION_WAIT_SECS } from './outcomes.js';
import { decideDials, type PacingDecision, type PacingInput, type PacingOutlook } from './pacing.js';

export interface DialerDeps {
  db: Database;
  clock: Clock;
  log: FastifyBaseLogger;
  events: EventsService;
  accounts: AccountService;
  agents: AgentService;
  liveState: LiveStateService;
  dnc: DncService;
  blacklist: BlacklistService;
  contacts: ContactService;
  lists: ContactListsPort;
  /** Told after the service set a disposition (`completed`): a push report held for it is due. */
  onDisposed: (accountId: number, callId: string) => Promise<void>;
}

/** Contacts read from the lists into the attempt table per tick, at most. */
const FRESH_PER_TICK = 500;
/** List callback changes read per tick, at most (the account's campaigns together). */
const CALLBACK_CHANGES_PER_TICK = 500;
/** A call the switch never reported on is closed as failed after ringSecs plus this. */
const SILENT_GRACE_SECS = 300;
/** The recent dials the answer rate is estimated from, and the rate assumed before any. */
export const ANSWER_SAMPLE = 200;
const PRIOR_HUMAN_RATE = 0.3;
/** Talk and wrap-up seconds assumed before calls to learn from (each worth PRIOR_WEIGHT calls). */
const PRIOR_TALK_SECS = 60;
const PRIOR_WRAP_SECS = 10;
const PRIOR_WEIGHT = 5;

/** The figures a tick decided from (campaign/status shows them). */
export interface TickFigures {
  freeAgents: number[];
  decision: PacingDecision;
  dialled: number;
}

/** A campaign of one account tick, with what was read for it. */
interface Ticking {
  c: Campaign;
  /** `campaigns.fresh_cursor` as read (FreshCursor). */
  cursor: string;
  /** True when the lists have nothing more to read. */
  exhausted: boolean;
  /** `campaigns.callback_seq` as read: the last list callback change applied (null: none yet). */
  callbackSeq: number | null;
}

/**
 * Where reading the lists into the attempt table stands: the last position
 * read, and, once every list was read to its end, the lists' contact mark
 * then (ContactListsPort.listMarks `contacts`) and which lists they were: while both
 * are the same, nothing was added and the lists are not read again.
 */
interface FreshCursor {
  position?: number;
  mark?: number;
  lists?: string;
}

/**
 * The dialer's work on the campaigns of one account (PRODUCT.md §13):
 * housekeeping (the service's abandons at connectSecs, silent calls,
 * dispositions that never came, `other.obd`), reading new contacts in, the
 * pacing decision, then each dial: compliance checked at that moment, the
 * dial recorded and its `call.originate` command pushed in one transaction
 * that also checks the lease and that no call to the number is in progress.
 */
export class Dialer {
  constructor(private readonly d: DialerDeps) {}

  private nowSec() {
    return Math.floor(this.d.clock.now() / 1000);
  }

  private repo(accountId: number, q: Queryable = this.d.db) {
    return new DialerRepository(tenant(q, accountId));
  }

  async campaign(accountId: number, campaignId: number): Promise<Campaign | null> {
    const row = await new CampaignRepository(tenant(this.d.db, accountId)).find(campaignId);
    return row ? campaignOf(row) : null;
  }

  /** One tick of one campaign whose lease `owner` holds (tickAccount of it alone; a failure is thrown). */
  async tick(accountId: number, campaignId: number, owner: string | null, decide?: (input: PacingInput) => PacingDecision): Promise<TickFigures | null> {
    return (await this.tickAccount(accountId, [campaignId], owner, undefined, decide)).get(campaignId) ?? null;
  }

  /**
   * One tick of the campaigns of one account whose leases `owner` holds.
   * What the campaigns' decisions need is read for the whole account, one
   * statement each, not per campaign (a campaign's own reads were a dozen
   * round trips, most of a tick on PostgreSQL): the campaign rows, then at
   * once (concurrent statements) the calls in progress, the agents' live
   * state, the groups' members, preview holds, dispositions overdue,
   * `other.obd` pending, whether anything was added to the lists or their
   * callbacks changed, the abandon windows, and what the predictive campaigns
   * learn from their recent dials (added up by the database: samplesOf).
   * Then each campaign in turn decides and dials; the
   * agents a campaign reserves are held before the next one looks. A
   * campaign that fails goes to `onError` and the others go on (without
   * `onError`, the failure is thrown). Answers each campaign's figures, null
   * for those that did not run. `decide` replaces the pacing decision (the
   * pacing benchmark drives other algorithms through the same dialer with
   * it); the worker never passes one.
   */
  async tickAccount(
    accountId: number,
    campaignIds: readonly number[],
    owner: string | null,
    onError?: (campaignId: number, err: unknown) => void,
    decide?: (input: PacingInput) => PacingDecision,
  ): Promise<Map<number, TickFigures | null>> {
    const out = new Map<number, TickFigures | null>(campaignIds.map((id) => [id, null]));
    const rows = (await new CampaignRepository(tenant(this.d.db, accountId)).findMany(campaignIds)).filter((r) => r.state === 'running');
    if (rows.length === 0) return out;
    const now = this.nowSec();
    const ticking: Ticking[] = rows.map((r) => ({ c: campaignOf(r), cursor: r.fresh_cursor, exhausted: false, callbackSeq: r.callback_seq }));
    const guarded = async (c: Campaign, fn: () => Promise<void>): Promise<boolean> => {
      try {
        await fn();
        return true;
      } catch (err) {
        if (!onError) throw err;
        onError(c.campaignId, err);
        return false;
      }
    };
    const ids = ticking.map((t) => t.c.campaignId);
    const repo = this.repo(accountId);
    const predictive = ticking.filter((t) => t.c.mode === 'predictive').map((t) => t.c.campaignId);
    const readWindows = () => repo.windowsOf(ticking.map((t) => ({ campaign_id: t.c.campaignId, since: this.windowStart(t.c, now) })));
    // The predictive look-ahead learns from each predictive campaign's recent dials (a campaign's dials of this tick are not among them: no result yet).
    const readSamples = () => repo.samplesOf(predictive, ANSWER_SAMPLE);

    // Everything the campaigns decide from, read at once (independent statements, concurrent on PostgreSQL's pool: read one
    // after another they were about 12 round trips of a steady tick's ~30 ms). What the housekeeping below changes is read
    // again after it, when it changed anything: a steady tick changes nothing.
    const read = await Promise.all([
      repo.openCalls(),
      repo.undisposedOf(ids, now - DISPOSITION_WAIT_SECS),
      repo.obdPendingOf(ids, 200),
      this.d.lists.listMarks(accountId),
      this.d.liveState.agents(accountId),
      this.d.agents.membersOfGroups(accountId, [...new Set(ticking.map((t) => t.c.groupId))]),
      repo.previewHolds(now),
      readWindows(),
      readSamples(),
    ]);
    const [, undisposed, , marks, live, members, previews] = read;
    let [open, , obd, , , , , windows, samples] = read;
    // Each campaign's calls in progress (a filter of the account's per campaign was 100 × 880 tests a tick).
    let openOf = byCampaign(open);
    let moved = false;
    for (const { c } of ticking)
      await guarded(c, async () => {
        if (await this.closeStale(accountId, c, openOf.get(c.campaignId) ?? [], now)) moved = true;
      });
    if (moved) {
      // queue/count's campId[] counts these: it looks again at the next request.
      await this.d.events.markOutbound(accountId);
      // An abandon moves the window's counters, a call ended joins the recent dials.
      [open, windows, samples] = await Promise.all([repo.openCalls(), readWindows(), readSamples()]);
      openOf = byCampaign(open);
    }
    if ((await this.settleUndisposed(accountId, undisposed, now)) > 0) obd = await repo.obdPendingOf(ids, 200);
    for (const p of obd) {
      await this.d.contacts.setObd(accountId, p.number, p.disposition ?? p.outcome);
      await repo.obdShown(p.call_id);
    }

    const alive: Ticking[] = [];
    for (const t of ticking)
      if (
        await guarded(t.c, async () => {
          t.exhausted = await this.readContacts(accountId, t.c, now, { cursor: t.cursor, mark: marks.contacts });
        })
      )
        alive.push(t);
    // After the contacts are read in (they bring their lists' callbacks), before any campaign dials.
    await this.takeCallbacks(accountId, alive, marks.callbacks, now);

    // The account's zone (calling hours of contacts and campaigns without one), read once when a campaign dials.
    let accountZone: string | undefined;
    // Agents any campaign of the account holds: a progressive or preview call in progress, a preview reservation.
    const held = new Set([...open.filter((k) => k.predictive === 0 && k.agent_id !== null).map((k) => k.agent_id!), ...previews]);
    for (const { c, exhausted } of alive)
      await guarded(c, async () => {
        const calls = openOf.get(c.campaignId) ?? [];
        const agents = groupAgents(members.get(c.groupId) ?? [], held, live, now);
        const free = agents.free;
        const pending = calls.filter((k) => k.predictive === 1 && k.agent_answered_at === null && k.outcome === null);
        const progress = {
          lines: calls.length,
          pendingPredictive: pending.length,
          agents: calls.filter((k) => k.predictive === 0 && k.agent_id !== null).map((k) => k.agent_id!),
          ringingSince: pending.filter((k) => k.connected_at === null).map((k) => k.dialled_at),
          waiting: pending.filter((k) => k.connected_at !== null).length,
        };
        const reservedHere = new Set(progress.agents);
        const w = windows.get(c.campaignId) ?? { humanAnswered: 0, abandoned: 0 };
        const sample = samples.get(c.campaignId) ?? sampleOf([]);
        // The estimate leans on the prior until there are dials to learn from.
        const humanRate = humanRateOf(sample);
        const input: PacingInput = {
          mode: c.mode,
          freeAgents: free.length,
          reservedAgents: reservedHere.size,
          lines: progress.lines,
          pendingPredictive: progress.pendingPredictive,
          maxLines: c.maxLines,
          dialRatio: c.dialRatio,
          humanAnswered: w.humanAnswered,
          abandoned: w.abandoned,
          maxAbandonRate: c.maxAbandonRate,
          humanRate,
          outlook: {
            talking: agents.talking,
            wrapping: agents.wrapping,
            ringing: progress.ringingSince.map((at) => Math.max(0, now - at)),
            waiting: progress.waiting,
            ...learned(sample),
          },
        };
        const decision = (decide ?? decideDials)(input);
        let dialled = 0;
        if (decision.dials > 0) {
          accountZone ??= (await this.d.accounts.settings(accountId)).timezone;
          dialled = await this.dialSome(accountId, c, decision, free, progress.agents, owner, now, accountZone, held);
        }
        if (dialled === 0 && exhausted && progress.lines === 0) await this.completeIfDone(accountId, c, now);
        out.set(c.campaignId, { freeAgents: free, decision, dialled });
      });
    return out;
  }

  /** The window's start: rolling 30 days or 24 hours, or the campaign's first start when shorter. */
  windowStart(c: Campaign, now: number): number {
    return Math.max(now - windowSecs(c.abandonWindow), c.startedAt ?? now);
  }

  /**
   * Of the campaign's calls in progress, those that are stale: the
   * service's own abandons (a person answered, no agent within
   * connectSecs) and the calls the switch never reported on. True when it
   * changed any.
   */
  private async closeStale(accountId: number, c: Campaign, open: readonly CallRow[], now: number): Promise<boolean> {
    let moved = false;
    const abandonBefore = now - c.connectSecs - 1;
    const silentBefore = now - c.ringSecs - SILENT_GRACE_SECS;
    for (const call of open) {
      if (
        call.outcome === null &&
        call.answered_by === 'human' &&
        call.agent_answered_at === null &&
        call.connected_at !== null &&
        call.connected_at <= abandonBefore
      ) {
        // A transaction: the outcome and the abandon window's counters change together (DialerRepository.changeDial).
        await this.d.db.transaction((tx) => this.repo(accountId, tx).markAbandoned(call.call_id));
        moved = true;
      } else if (call.connected_at === null && call.agent_answered_at === null && call.dialled_at <= silentBefore) {
        moved = true;
        await this.d.db.transaction(async (tx) => {
          const r = this.repo(accountId, tx);
          await r.endCall(call.call_id, now, 'failed');
          await afterOutcome(r, call, 'failed', now, c);
        });
      }
    }
    return moved;
  }

  /** Answered calls whose disposition never came (DialerRepository.undisposedOf): `completed`. Answers how many. */
  private async settleUndisposed(
    accountId: number,
    undisposed: ReadonlyArray<{ campaign_id: number; contact_id: number; call_id: string }>,
    now: number,
  ): Promise<number> {
    for (const u of undisposed) {
      await this.d.db.transaction(async (tx) => {
        const r = this.repo(accountId, tx);
        await r.dispose(u.call_id, 'completed', now, null);
        await r.afterCall(u.campaign_id, u.contact_id, { nextAt: now, done: true, awaiting: null, outcome: 'completed' });
      });
      await this.d.onDisposed(accountId, u.call_id);
    }
    return undisposed.length;
  }

  /**
   * Reads new list contacts into the attempt table; true when the lists
   * have nothing more to read. `known`: what the account's tick already
   * read (the campaign's cursor, the lists' contact mark), which then takes
   * the lists' callbacks itself (takeCallbacks); without it, the cursor is
   * read here and the campaign's callbacks are taken too (campaign/preview).
   */
  async readContacts(accountId: number, c: Campaign, now: number, known?: { cursor: string; mark: number }): Promise<boolean> {
    if (!known) {
      const [row, marks] = await Promise.all([new CampaignRepository(tenant(this.d.db, accountId)).find(c.campaignId), this.d.lists.listMarks(accountId)]);
      const exhausted = await this.readContacts(accountId, c, now, { cursor: row?.fresh_cursor ?? '{}', mark: marks.contacts });
      await this.takeCallbacks(accountId, [{ c, callbackSeq: row?.callback_seq ?? null }], marks.callbacks, now);
      return exhausted;
    }
    const cursorText = known.cursor;
    const cursor = JSON.parse(cursorText) as FreshCursor;
    const after = Number(cursor.position ?? 0);
    const lists = c.clIds.join(',');
    // Every list read to its end and nothing added since: no read.
    if (cursor.mark === known.mark && cursor.lists === lists) return true;
    const fresh = await this.d.lists.contactsForDialling(accountId, c.clIds, { afterPosition: after, limit: FRESH_PER_TICK });
    const exhausted = fresh.length < FRESH_PER_TICK;
    // The mark read before the lists: a contact added in between moves it, and the next tick reads again.
    const next: FreshCursor = {
      position: fresh.length > 0 ? fresh[fresh.length - 1]!.position : after,
      ...(exhausted ? { mark: known.mark, lists } : {}),
    };
    if (fresh.length > 0 || JSON.stringify(next) !== cursorText) {
      await this.d.db.transaction(async (tx) => {
        if (fresh.length > 0)
          await this.repo(accountId, tx).addContacts(
            c.campaignId,
            fresh.map((f) => ({
              contactId: f.contactId,
              clId: f.clId,
              position: f.position,
              number: f.number,
              nextAt: Math.max(f.scheduleAt ?? 0, f.rescheduleAt ?? 0),
              callbackAt: f.rescheduleAt,
              callbackSeq: f.callbackSeq,
            })),
          );
        await new CampaignRepository(tenant(tx, accountId)).setCursor(c.campaignId, JSON.stringify(next));
      });
    }
    return exhausted;
  }

  /**
   * The lists' callbacks (`campaignReschedule`), each honoured once by each
   * campaign (docs/campaigns.md): the changes made to them since a
   * campaign last looked (the account's callback mark says whether there
   * are any: a steady tick reads none) become its contacts' callbacks to
   * honour (`callback_at`); then those due are honoured — first in line —
   * and spent, so a callback honoured, or one its contact can no longer
   * take (done, out of attempts), is never read again. A campaign's first
   * look starts at the mark: its contacts bring their lists' callbacks as
   * they are read in.
   */
  private async takeCallbacks(accountId: number, campaigns: ReadonlyArray<Pick<Ticking, 'c' | 'callbackSeq'>>, mark: number, now: number): Promise<void> {
    const repo = this.repo(accountId);
    const cursors = new CampaignRepository(tenant(this.d.db, accountId));
    for (const t of campaigns) if (t.callbackSeq === null) await cursors.setCallbackCursor(t.c.campaignId, mark);
    const behind = campaigns.filter((t): t is typeof t & { callbackSeq: number } => t.callbackSeq !== null && t.callbackSeq < mark);
    if (behind.length > 0) {
      const from = Math.min(...behind.map((t) => t.callbackSeq));
      const clIds = [...new Set(behind.flatMap((t) => t.c.clIds))];
      const changes = await this.d.lists.callbackChanges(accountId, clIds, from, CALLBACK_CHANGES_PER_TICK);
      // Read to the end: every change up to the mark is seen. Else up to the last one read, the rest next tick.
      const last = changes.length > 0 ? changes[changes.length - 1]!.callbackSeq : from;
      const upTo = changes.length < CALLBACK_CHANGES_PER_TICK ? Math.max(mark, last) : last;
      for (const t of behind) {
        const mine = changes.filter((ch) => ch.callbackSeq > t.callbackSeq && t.c.clIds.includes(ch.clId));
        // Applied before the cursor moves: a failure in between applies them again, which changes nothing (callback_seq).
        await repo.applyCallbackChanges(
          t.c.campaignId,
          mine.map((ch) => ({ contactId: ch.contactId, at: ch.rescheduleAt, seq: ch.callbackSeq })),
        );
        await cursors.setCallbackCursor(t.c.campaignId, upTo);
      }
    }
    const ids = campaigns.map((t) => t.c.campaignId);
    if (await repo.hasDueCallbacks(ids, now)) await repo.markDueCallbacks(ids, now);
  }

  private async completeIfDone(accountId: number, c: Campaign, now: number): Promise<void> {
    const s = await this.repo(accountId).contactStates(c.campaignId, now, c.maxAttempts);
    if (s.open > 0) return;
    await this.d.db.transaction(async (tx) => {
      const repo = new CampaignRepository(tenant(tx, accountId));
      const row = await repo.findForUpdate(c.campaignId);
      if (row?.state === 'running') await repo.setState(c.campaignId, 'completed', now, null);
    });
    this.d.log.info({ accountId, campaignId: c.campaignId }, 'campaign completed: no contact can be dialled again');
  }

  /**
   * The compliance checks of §13 on the list's contact as it is now
   * (campaign/preview, before it holds a contact for an agent). Answers the
   * number to dial, or null after leaving the contact for later (or for
   * good) with why. The dial itself judges again in its transaction.
   */
  async compliant(accountId: number, c: Campaign, a: AttemptRow, now: number, accountZone: string): Promise<{ contact: ListContact; number: string } | null> {
    const contact = await this.d.lists.contactById(accountId, a.contact_id);
    const facts = async (number: string): Promise<NumberFacts> => ({
      dnc: await this.d.dnc.get(accountId, number),
      blacklisted: (await this.d.blacklist.blocks(accountId, number, c.did)) || (await this.d.contacts.blacklisted(accountId, number)),
    });
    const known = contact && !contact.deleted ? await facts(contact.number) : { dnc: 0, blacklisted: false };
    const v = verdictOf(contact, () => known, c, accountZone, now);
    if ('later' in v) {
      const l = v.later;
      await this.repo(accountId).setLater(c.campaignId, a.contact_id, l.nextAt, l.done, l.outcome, l.number ?? undefined);
      return null;
    }
    return { contact: contact!, number: v.dial };
  }

  /** The campaign's next calls, compliance and all, in one transaction (dial-batch.ts); the agents a progressive campaign reserves join `held`. */
  private async dialSome(
    accountId: number,
    c: Campaign,
    decision: PacingDecision,
    free: number[],
    reserved: number[],
    owner: string | null,
    now: number,
    accountZone: string,
    /** The account's held agents: each agent this campaign reserves is added (the next campaign of the tick sees it). */
    held: Set<number>,
  ): Promise<number> {
    // Progressive calls each name an agent: free ones first, then those this campaign holds, up to ceil(dialRatio) calls each.
    const perAgent = new Map<number, number>();
    for (const id of free) perAgent.set(id, 0);
    for (const id of reserved) perAgent.set(id, (perAgent.get(id) ?? 0) + 1);
    const slots = Math.ceil(c.dialRatio - 1e-9);
    const agents: AgentSlots = {
      next: () => {
        let best: number | null = null;
        for (const [id, n] of perAgent) if (n < slots && (best === null || n < perAgent.get(best)!)) best = id;
        return best;
      },
      take: (id) => perAgent.set(id, perAgent.get(id)! + 1),
    };
    const r = await dialBatch(this.d, accountId, {
      c,
      owner,
      accountZone,
      now,
      want: decision.dials,
      predictive: decision.as === 'predictive',
      agents: decision.as === 'progressive' ? agents : null,
      candidates: (repo) => repo.candidates(c.campaignId, now, c.maxAttempts, decision.dials * 3 + 10),
    });
    for (const p of r.placed) if (p.agentId !== null) held.add(p.agentId);
    return r.placed.length;
  }

  /**
   * campaign/previewDial's dial of the contact held for the agent: compliance
   * judged and the dial recorded with its command in one transaction.
   * Answers the call id, or why it was not placed.
   */
  async dialHeld(accountId: number, c: Campaign, contactId: number, agentId: number): Promise<{ callId: string } | { why: Skip | 'contact' | 'lease' }> {
    const now = this.nowSec();
    const { timezone } = await this.d.accounts.settings(accountId);
    const r = await dialBatch(this.d, accountId, {
      c,
      owner: null,
      accountZone: timezone,
      now,
      want: 1,
      predictive: false,
      agents: { next: () => agentId, take: () => undefined },
      candidates: async (repo) => {
        const a = await repo.attempt(c.campaignId, contactId);
        // Still held for this agent, and dialable: a contact dialled, done or out of attempts meanwhile is not.
        return a && a.reserved_by === agentId && a.reserved_until > now && a.in_call === null && a.done === 0 && a.attempts < c.maxAttempts ? [a] : [];
      },
    });
    if (r.placed[0]) return { callId: r.placed[0].callId };
    return { why: r.stopped ?? r.skipped.get(contactId) ?? 'contact' };
  }
}

/** The share of the recent resolved dials a person answered, leaning on a prior worth 20 dials. */
export function humanRateOf(s: DialSample): number {
  return (s.humans + PRIOR_HUMAN_RATE * 20) / (s.dials + 20);
}

/**
 * What the predictive look-ahead learns from the campaign's recent dials
 * (also bench/pacing-replay.ts, which must learn exactly as the dialer does):
 * when each was answered (or ended unanswered), by whom, and the mean talk
 * and wrap-up of those an agent took, each leaning on a prior until there
 * are calls to learn from.
 */
export function learned(s: DialSample): Pick<PacingOutlook, 'outcomes' | 'talkSecs' | 'wrapSecs'> {
  return {
    outcomes: s.outcomes,
    talkSecs: (s.talkSecs + PRIOR_TALK_SECS * PRIOR_WEIGHT) / (s.talkN + PRIOR_WEIGHT),
    wrapSecs: (s.wrapMs / 1000 + PRIOR_WRAP_SECS * PRIOR_WEIGHT) / (s.wrapN + PRIOR_WEIGHT),
  };
}

/** The calls by campaign. */
function byCampaign(calls: readonly CallRow[]): Map<number, CallRow[]> {
  const out = new Map<number, CallRow[]>();
  for (const k of calls) {
    const list = out.get(k.campaign_id);
    if (list) list.push(k);
    else out.set(k.campaign_id, [k]);
  }
  return out;
}

/**
 * Of the group's members, those held by no campaign: free now (logged in,
 * no break, wrap-up, ring or call), and for the predictive look-ahead the
 * seconds each busy one has been on its call or in its wrap-up.
 */
function groupAgents(
  members: readonly number[],
  held: Set<number>,
  live: Map<number, AgentLive>,
  now: number,
): { free: number[]; talking: number[]; wrapping: number[] } {
  const out = { free: [] as number[], talking: [] as number[], wrapping: [] as number[] };
  for (const id of members) {
    const a = live.get(id);
    // An agent on a break is neither free nor about to be.
    if (a === undefined || !a.loggedIn || a.breakReason !== null || held.has(id)) continue;
    if (a.callId !== null) out.talking.push(Math.max(0, now - (a.callAt ?? now)));
    else if (a.wrapupAt !== null) out.wrapping.push(Math.max(0, now - a.wrapupAt));
    else if (isAvailable(a) && a.ringCall === null) out.free.push(id);
  }
  return out;
}
