import type { AppContext } from '../../context.js';
import { visibleSubtreeOf, type Principal } from '../../auth/principal.js';
import { tenant } from '../../db/tenant.js';
import { agentError, fail } from '../../errors/catalogue.js';
import type { AccountService } from '../account/account.service.js';
import { toId } from '../../http/ids.js';
import { localDay } from '../../time/zone.js';
import { agentStateName, type AgentLive, type AgentStateName, type CallLive } from '../events/live.types.js';
import type { LiveStateService } from '../events/live-state.service.js';
import { CoalescedRead } from '../../cache/coalesced-read.js';
import { ViewCache } from '../../cache/view-cache.js';
import type { GroupService } from '../group/group.service.js';
import { hms } from './live.format.js';
import { LiveRepository, type LiveAgentRow } from './live.repository.js';

export interface LiveFilter {
  key: string;
  op?: string;
  val: unknown;
}

export interface LiveQuery {
  groupid?: string | number;
  status?: 'all' | 'login';
  A?: number | string;
  filter?: LiveFilter[];
}

/** Filter keys of Agent/live and how each reads an element (docs/api/events.md). */
const FILTER_KEYS: Record<string, (r: Row) => string | number> = {
  state: (r) => r.state,
  agentId: (r) => r.id,
  loginType: (r) => r.live?.loginType ?? '',
  sip_status: (r) => r.live?.sipStatus ?? 'offline',
  name: (r) => r.name,
};

interface Row extends LiveAgentRow {
  state: AgentStateName;
}

function checkFilter(filter: LiveFilter[]): Array<(r: Row) => boolean> {
  return filter.map((f) => {
    const read = FILTER_KEYS[f.key];
    if (!read) throw agentError(1502, `filter key ${JSON.stringify(f.key)}; use ${Object.keys(FILTER_KEYS).join(', ')}`);
    const op = f.op ?? (Array.isArray(f.val) ? 'in' : 'eq');
    const vals = Array.isArray(f.val) ? f.val : typeof f.val === 'string' && op === 'in' ? f.val.split(',') : [f.val];
    if (vals.length === 0 || vals.some((v) => typeof v !== 'string' && typeof v !== 'number')) throw agentError(1502, `filter ${f.key}: val`);
    const want = new Set(vals.map((v) => String(v).trim()));
    if (f.key === 'state' && [...want].some((v) => !['offline', 'available', 'break', 'wrapup', 'ringing', 'oncall'].includes(v))) {
      throw agentError(1502, 'filter state: offline, available, break, wrapup, ringing or oncall');
    }
    if (op === 'eq' || op === 'in') return (r: Row) => want.has(String(read(r)));
    if (op === 'ne') return (r: Row) => !want.has(String(read(r)));
    if (op === 'like' && f.key === 'name') return (r: Row) => r.name.toLowerCase().includes(String(vals[0]).toLowerCase());
    throw agentError(1502, `filter ${f.key}: op ${JSON.stringify(op)}; use eq, ne, in (like for name)`);
  });
}

export interface LiveServiceDeps {
  ctx: AppContext;
  accounts: Pick<AccountService, 'settings'>;
  groups: Pick<GroupService, 'exists'>;
  liveState: LiveStateService;
}

/** Agent/live (spec: live agent statistics element; PRODUCT §3, §7). */
export class LiveService {
  private readonly ctx: AppContext;
  private readonly accounts: Pick<AccountService, 'settings'>;
  private readonly groups: Pick<GroupService, 'exists'>;
  private readonly live: LiveStateService;
  private readonly cache = new ViewCache<object>();
  /** One version read shared by the requests of a moment (each still sees every earlier write). */
  private readonly versions: CoalescedRead<number, string>;

  constructor(deps: LiveServiceDeps) {
    const { ctx } = deps;
    this.ctx = ctx;
    this.accounts = deps.accounts;
    this.groups = deps.groups;
    this.live = deps.liveState;
    this.versions = new CoalescedRead((accountId) => this.live.viewVersion(accountId));
    // A renamed, re-parented or deactivated agent (or a changed role) shows at once, not within the
    // second: a can_see 0 supervisor must not keep seeing an agent moved out of its subtree.
    ctx.auth.onAccountChange((accountId) => this.cache.dropPrefix(`${accountId}|`));
  }

  /** The group to show: the explicit one (1006 when unknown), all for "", else the account default when it exists, else all. */
  private async group(accountId: number, explicit: string | number | undefined, defaultGroupId: number | null): Promise<number | null> {
    // An empty groupid asks for every agent (a wallboard's "all groups"); omitted means the default rule.
    if (explicit === '') return null;
    if (explicit !== undefined) {
      const id = toId(explicit);
      if (!(await this.groups.exists(accountId, id))) throw fail(1006, `group ${explicit}`);
      return id;
    }
    if (defaultGroupId === null) return null;
    return (await this.groups.exists(accountId, defaultGroupId)) ? defaultGroupId : null;
  }

  /** The agent ids a principal may see (PRODUCT §4), or null when it sees every agent of the account. */
  async visibleAgentIds(principal: Principal): Promise<Set<number> | null> {
    const subtree = visibleSubtreeOf(principal);
    if (subtree === null) return null;
    const rows = await new LiveRepository(tenant(this.ctx.db, principal.accountId)).agents(null, subtree);
    return new Set(rows.map((r) => r.id));
  }

  /** Served from a per-second cache while nothing it depends on changed (see ViewCache). */
  async agentsLive(principal: Principal, q: LiveQuery) {
    const key = `${principal.accountId}|${visibleSubtreeOf(principal)}|${JSON.stringify([q.groupid ?? null, q.status ?? null, Number(q.A ?? 0), q.filter ?? []])}`;
    const version = await this.versions.read(principal.accountId);
    const second = Math.floor(this.ctx.clock.now() / 1000);
    return this.cache.getOrCompute(key, version, second, () => this.compute(principal, q));
  }

  private async compute(principal: Principal, q: LiveQuery) {
    const accountId = principal.accountId;
    const predicates = checkFilter(q.filter ?? []);
    const settings = await this.accounts.settings(accountId);
    const groupId = await this.group(accountId, q.groupid, settings.defaultGroupId);
    const rows = await new LiveRepository(tenant(this.ctx.db, accountId)).agents(groupId, visibleSubtreeOf(principal));
    const needCalls = rows.some((r) => r.live && (r.live.callId || r.live.ringCall));
    const calls = needCalls ? new Map((await this.live.calls(accountId)).map((c) => [c.callId, c])) : new Map<string, CallLive>();
    const now = this.ctx.clock.now() / 1000;
    const today = localDay(now, settings.timezone);
    const extra = Number(q.A ?? 0) === 1;

    let list: Row[] = rows.map((r) => ({ ...r, state: r.live ? agentStateName(r.live) : 'offline' }));
    if (q.status === 'login') list = list.filter((r) => r.live?.loggedIn);
    for (const p of predicates) list = list.filter(p);

    const counters = { oCA: 0, oBA: 0, lA: 0, Dia: 0, Ring: 0 };
    const pr = list.map((r) => {
      const a = r.live;
      if (a?.loggedIn) counters.lA++;
      if (a?.callId) counters.oCA++;
      if (a?.breakReason !== null && a?.breakReason !== undefined && a.loggedIn) counters.oBA++;
      if (a?.wrapupAt !== null && a?.wrapupAt !== undefined && a.loggedIn) counters.Dia++;
      if (a?.ringCall) counters.Ring++;
      return element(r, a, calls, now, today, extra);
    });
    return { message: { pr, ...counters } };
  }
}

function element(r: Row, a: AgentLive | null, calls: Map<string, CallLive>, now: number, today: { key: string; start: number }, extra: boolean) {
  const sameDay = a !== null && a.dayKey === today.key;
  const openAvail = a?.availSince != null ? Math.max(0, now - Math.max(a.availSince, today.start)) : 0;
  const avT = (sameDay ? a.availSecs : 0) + openAvail;
  const ongoing = a?.callId && a.callAt !== null ? Math.max(0, now - a.callAt) : 0;
  const tt = (sameDay ? a.talkSecs : 0) + ongoing;
  const tC = sameDay ? a.calls : 0;
  const callId = a?.callId ?? a?.ringCall ?? null;
  const call = callId ? calls.get(callId) : undefined;
  const liC = call
    ? {
        callId: call.callId,
        state: a?.callId ? 'connected' : 'ringing',
        caller: call.caller ?? '',
        did: call.did ?? '',
        groupId: call.groupId,
        direction: call.direction,
        onHold: call.onHold,
        duration: hms(now - ((a?.callId ? a.callAt : a?.ringAt) ?? now)),
      }
    : {};
  const el = {
    I: String(r.id),
    nm: r.name,
    avT: hms(avT),
    avD: a?.availSince != null ? Math.floor(a.availSince) : 0,
    liC,
    l: a?.loggedIn ? { type: a.loginType ?? 'Web', duration: hms(now - (a.loginAt ?? now)) } : ('No' as const),
    ml: a?.loggedIn && a.loginType === 'Mobile' ? 'Yes' : 'No',
    IsOcc: a?.callId || a?.ringCall ? 1 : 0,
    mic_perm: a?.loggedIn && a.loginType !== 'Mobile' ? 1 : 0,
    sip_status: a?.sipStatus ?? 'offline',
    tt: Math.round(tt),
    tC,
    ataT: hms(tC > 0 ? tt / tC : 0),
    br: a?.loggedIn && a.breakReason !== null ? { reason: a.breakReason, duration: hms(now - (a.breakAt ?? now)) } : {},
  };
  if (!extra) return el;
  return {
    ...el,
    ex: {
      state: r.state,
      email: r.email,
      phone: r.phone,
      loginAt: a?.loggedIn && a.loginAt !== null ? Math.floor(a.loginAt) : 0,
      wrapup: a?.loggedIn && a.wrapupAt !== null ? { duration: hms(now - a.wrapupAt) } : {},
      availableSecs: Math.round(avT),
      ringingCallId: a?.ringCall ?? '',
      callId: a?.callId ?? '',
    },
  };
}
