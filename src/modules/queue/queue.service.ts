import { createHash } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Principal } from '../../auth/principal.js';
import { withLocks } from '../../db/locks.js';
import { fail, queueError } from '../../errors/catalogue.js';
import type { CallHistoryService } from '../calls/call-history.service.js';
import type { EventsService } from '../events/events.service.js';
import { agentStateName } from '../events/live.types.js';
import type { LiveStateService } from '../events/live-state.service.js';
import type { LiveService } from '../live/live.service.js';
import { CoalescedRead } from '../../cache/coalesced-read.js';
import { ViewCache } from '../../cache/view-cache.js';
import { liveCallView, queueStats } from './queue.stats.js';
import type { CampaignFiguresService } from '../campaign/campaign-figures.service.js';

/** What queue/count asks of the campaign module. */
type CampaignCounts = Pick<CampaignFiguresService, 'campIdCounts'>;

export const DEFAULT_WINDOW = 300;
const LIST_LOCK_MS = 30_000;

export interface ListFilter {
  key: string;
  op: string;
  val: unknown;
}

export interface ListQuery {
  window?: number;
  filter?: ListFilter[];
  page?: number;
  size?: number;
  Modules?: string[];
  summarytype?: string;
}

type CallView = ReturnType<typeof liveCallView>;
const FILTER_KEYS = new Set([
  'callId',
  'caller',
  'did',
  'groupId',
  'campaignId',
  'direction',
  'state',
  'agentId',
  'ringingAgentId',
  'wait',
  'queuedAt',
  'onHold',
]);
const OPS = new Set(['gte', 'lte', 'eq', 'ne', 'in']);
export const MODULES = ['queueDuration', 'summary', 'agent', 'calls'] as const;
const SUMMARY_TYPES: Record<string, string | null> = { all: null, pending: 'queued', process: 'ringing', assigned: 'connected' };

function matcher(f: ListFilter): (c: CallView) => boolean {
  if (!FILTER_KEYS.has(f.key)) throw queueError(1502, `filter key ${JSON.stringify(f.key)}; use ${[...FILTER_KEYS].join(', ')}`);
  if (!OPS.has(f.op)) throw queueError(1502, `filter ${f.key}: op ${JSON.stringify(f.op)}; use gte, lte, eq, ne, in`);
  const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
  const read = (c: CallView) => (c as Record<string, unknown>)[f.key];
  if (f.op === 'in') {
    const vals = Array.isArray(f.val) ? f.val : typeof f.val === 'string' ? f.val.split(',').map((s) => s.trim()) : null;
    if (!vals || vals.length === 0 || !vals.every(scalar)) throw queueError(1502, `filter ${f.key}: in takes an array or a comma-separated string`);
    const set = new Set(vals.map(String));
    return (c) => set.has(String(read(c)));
  }
  if (!scalar(f.val)) throw queueError(1502, `filter ${f.key}: val`);
  if (f.op === 'gte' || f.op === 'lte') {
    const n = Number(f.val);
    if (!Number.isFinite(n) || typeof f.val === 'boolean') throw queueError(1502, `filter ${f.key}: ${f.op} needs a number`);
    return f.op === 'gte' ? (c) => Number(read(c)) >= n : (c) => Number(read(c)) <= n;
  }
  const want = String(f.val);
  return f.op === 'eq' ? (c) => String(read(c)) === want : (c) => String(read(c)) !== want;
}

/** The lock key of a queue/list request: one identical request per account at a time (1501). */
export function listLockKey(accountId: number, q: ListQuery): string {
  const canonical = JSON.stringify([q.window ?? null, q.filter ?? null, q.page ?? null, q.size ?? null, q.Modules ?? null, q.summarytype ?? null]);
  return `queue-list:${accountId}:${createHash('sha1').update(canonical).digest('hex')}`;
}

export interface QueueServiceDeps {
  ctx: AppContext;
  liveState: LiveStateService;
  history: CallHistoryService;
  events: EventsService;
  live: LiveService;
  campaigns: CampaignCounts;
}

/** queue/count, queue/list, queue/callTakeover. */
export class QueueService {
  private readonly ctx: AppContext;
  private readonly live: LiveStateService;
  private readonly history: CallHistoryService;
  private readonly events: EventsService;
  private readonly countCache = new ViewCache<object>();
  /** One sequence read shared by the requests of a moment (each still sees every earlier event). */
  private readonly sequences: CoalescedRead<number, string>;
  private readonly agentsView: LiveService;
  /** `data.campId[]` (PRODUCT.md §13): the campaign module's figures of the dials. */
  private readonly campaigns: CampaignCounts;

  constructor(deps: QueueServiceDeps) {
    this.ctx = deps.ctx;
    this.campaigns = deps.campaigns;
    this.live = deps.liveState;
    this.history = deps.history;
    this.events = deps.events;
    this.agentsView = deps.live;
    // With the outbound mark: campaign-call changes that take no sequence number move campId[].
    this.sequences = new CoalescedRead((accountId) => this.live.sequenceMark(accountId));
  }

  private async stats(accountId: number, window: number) {
    const now = this.ctx.clock.now() / 1000;
    const since = now - window;
    // The sequence first: the figures are at least as new as the lstSync they are answered with.
    const seq = await this.live.sequence(accountId);
    const [live, recent, rings, agents] = await Promise.all([
      this.live.calls(accountId),
      this.history.recentSince(accountId, since),
      this.history.ringSecsSince(accountId, since),
      this.live.agents(accountId),
    ]);
    const stats = queueStats({ accountId, now, window, live, recent, endedRingSecs: rings.map((r) => Number(r.ring_secs)), agents: [...agents.values()] });
    return { seq, now, live, agents, stats };
  }

  /** Served from a per-second cache while the account's sequence is unchanged (see ViewCache). */
  async count(principal: Principal, window = DEFAULT_WINDOW) {
    const visible = await this.agentsView.visibleAgentIds(principal);
    const key = `${principal.accountId}|${window}|${visible ? [...visible].join(',') : '*'}`;
    const seq = await this.sequences.read(principal.accountId);
    const second = Math.floor(this.ctx.clock.now() / 1000);
    // Cached under the sequence read first: a concurrent event makes the next request recompute.
    return this.countCache.getOrCompute(key, seq, second, async () => {
      const computed = await this.computeCount(principal, window);
      // A can_see 0 principal sees per-agent rows only of the agents it may see.
      if (visible) computed.data.ag = computed.data.ag.filter((r) => visible.has(r.key));
      return computed;
    });
  }

  private async computeCount(principal: Principal, window: number) {
    const { seq, now, live, stats: s } = await this.stats(principal.accountId, window);
    const campId = await this.campaigns.campIdCounts(principal.accountId, now - window, now);
    return {
      lstSync: String(seq),
      window,
      chart: s.chart,
      data: {
        calls: live.map((c) => liveCallView(c, now)),
        count: s.count,
        avC: s.avC,
        avR: s.avR,
        stA: s.stA,
        st1: s.st1,
        qDura: s.qDura,
        ag: s.ag,
        campId,
        st: s.st,
        grp: s.grp,
        user: s.user,
        did: s.did,
      },
    };
  }

  async list(principal: Principal, q: ListQuery) {
    const predicates = (q.filter ?? []).map(matcher);
    const modules = new Set(q.Modules ?? MODULES);
    for (const m of modules) if (!(MODULES as readonly string[]).includes(m)) throw fail(1000, `Modules: ${m}; use ${MODULES.join(', ')}`);
    const summaryType = q.summarytype ?? 'all';
    if (!(summaryType in SUMMARY_TYPES)) throw queueError(1502, `summarytype ${JSON.stringify(summaryType)}; use ${Object.keys(SUMMARY_TYPES).join(', ')}`);
    const locked = await withLocks(this.ctx.db, [listLockKey(principal.accountId, q)], LIST_LOCK_MS, () =>
      this.listUnlocked(principal, q, predicates, modules, summaryType),
    );
    if (!locked) throw queueError(1501, 'an identical queue/list request is running for this account');
    return locked.value;
  }

  private async listUnlocked(principal: Principal, q: ListQuery, predicates: Array<(c: CallView) => boolean>, modules: Set<string>, summaryType: string) {
    const window = q.window ?? DEFAULT_WINDOW;
    const { seq, now, live, agents, stats: s } = await this.stats(principal.accountId, window);
    const agentList = [...agents.values()];
    const state = SUMMARY_TYPES[summaryType];
    let calls = live.filter((c) => state === null || c.state === state).map((c) => liveCallView(c, now));
    for (const p of predicates) calls = calls.filter(p);
    const size = q.size ?? 20;
    const page = q.page ?? 0;
    const data: Record<string, unknown> = {
      onB: agentList.filter((a) => a.loggedIn && a.breakReason !== null).length,
      onC: agentList.filter((a) => a.callId !== null).length,
      web: agentList.filter((a) => a.loggedIn && a.loginType === 'Web').length,
      total: calls.length,
      page,
      size,
    };
    if (modules.has('calls')) data.calls = calls.slice(page * size, page * size + size);
    if (modules.has('queueDuration')) data.queueDuration = s.qDura;
    if (modules.has('summary')) data.summary = { type: summaryType, ...s.totals, count: s.count, avC: s.avC, avR: s.avR, stA: s.stA, st1: s.st1 };
    if (modules.has('agent')) {
      const perAgent = new Map(s.ag.map((r) => [r.key, r]));
      const visible = await this.agentsView.visibleAgentIds(principal);
      data.agent = agentList
        .filter((a) => !visible || visible.has(a.agentId))
        .filter((a) => a.loggedIn || perAgent.has(a.agentId))
        .sort((a, b) => a.agentId - b.agentId)
        .map((a) => {
          const r = perAgent.get(a.agentId);
          return {
            agentId: a.agentId,
            state: agentStateName(a),
            loginType: a.loginType ?? '',
            callId: a.callId ?? '',
            ringingCallId: a.ringCall ?? '',
            add: r?.add ?? 0,
            drop: r?.drop ?? 0,
            con: r?.con ?? 0,
          };
        });
    }
    return { lstSync: String(seq), window, chart: s.chart, data };
  }

  /** queue/callTakeover: find the live call (callId and/or caller number), move it to the taking-over agent. */
  async takeover(principal: Principal, input: { callId?: string; callernumber?: string; agentid?: number }) {
    const { callId, callernumber } = input;
    let to = input.agentid;
    if (to === undefined) {
      if (principal.kind !== 'agent' || principal.agentId === null) throw fail(1000, 'agentid: name the agent who takes the call over');
      to = principal.agentId;
    }
    if (callId === undefined && callernumber === undefined) throw fail(1000, 'callId or callernumber is required');
    const accountId = principal.accountId;
    let target: string | undefined;
    if (callId !== undefined) {
      const c = await this.live.call(accountId, callId);
      if (c && (callernumber === undefined || c.caller === callernumber)) target = c.callId;
    } else {
      target = (await this.live.callsOfCaller(accountId, callernumber!))[0]?.callId;
    }
    if (!target) throw fail(1000, 'live call not found or invalid');
    const t = await this.events.takeover(accountId, target, to);
    return { callId: t.callId, from: t.from, to: t.to };
  }
}
