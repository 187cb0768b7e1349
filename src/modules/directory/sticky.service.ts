import type { Clock } from '../../clock.js';
import type { Database } from '../../db/types.js';
import { tenant } from '../../db/tenant.js';
import { directoryError, fail } from '../../errors/catalogue.js';
import type { AgentService } from '../agent/agent.service.js';
import { didDigits, type DidService } from '../did/did.service.js';
import type { GroupService } from '../group/group.service.js';
import { isMilliseconds, secondsExpected } from '../../time/unix.js';
import { StickyRepository, type StickyRow, type StickyScope } from './sticky.repository.js';

/** `all`, `*` (= all), `cli`, `cli_group`; anything else is 1502. */
export function parseScope(type: unknown): StickyScope {
  const t = typeof type === 'string' ? type.trim().toLowerCase() : type;
  if (t === 'all' || t === '*') return 'all';
  if (t === 'cli' || t === 'cli_group') return t;
  throw directoryError(1502, 'type must be all (or *), cli or cli_group');
}

/** An integer as number or string, else null. */
function integer(v: unknown): number | null {
  const n = typeof v === 'string' && /^\s*-?\d{1,16}\s*$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) ? n : null;
}

/**
 * Sticky expiry (PRODUCT.md §5): any integer >= -1, as the spec states. -1
 * never expires; 0 or a time already past is stored and never applies (so it
 * replaces, and thereby ends, an active setting of the same key). Not an
 * integer: 1509; below -1: 1508; over 10^11 (milliseconds): 1001 saying
 * seconds are expected.
 */
export function parseExpiry(v: unknown): number {
  const n = integer(v);
  if (n === null) throw directoryError(1509, 'expiry must be an integer (Unix seconds, or -1)');
  if (n < -1) throw directoryError(1508, `got ${n}`);
  if (isMilliseconds(n)) throw fail(1001, secondsExpected('expiry', n));
  return n;
}

/** A group id as number or digit string; 1506 otherwise. */
function groupIdOf(v: unknown): number {
  const n = integer(v);
  if (n === null || n < 0) throw directoryError(1506, 'groupid must be a group id');
  return n;
}

const present = (v: unknown) => v !== undefined && v !== null && v !== '';

export interface StickyView {
  agent: number;
  expiry: number;
  type: '*' | 'cli' | 'cli_group';
  cli?: string;
  groupid?: number;
}

function view(r: StickyRow): StickyView {
  const v: StickyView = { agent: r.agentId, expiry: r.expiry, type: r.scope === 'all' ? '*' : r.scope };
  if (r.scope !== 'all') v.cli = r.cli;
  if (r.scope === 'cli_group') v.groupid = r.groupId;
  return v;
}

export interface StickyFilter {
  type?: unknown;
  agentId?: number;
  groupid?: unknown;
  cli?: unknown;
  expiry?: unknown;
}

export interface StickyServiceDeps {
  db: Database;
  clock: Clock;
  agents: AgentService;
  groups: GroupService;
  dids: DidService;
}

/** Sticky agents: a contact's preferred agent, by scope, with expiry. */
export class StickyService {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly agents: AgentService;
  private readonly groups: GroupService;
  private readonly dids: DidService;

  constructor(deps: StickyServiceDeps) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.agents = deps.agents;
    this.groups = deps.groups;
    this.dids = deps.dids;
  }

  private repo(accountId: number, q: Parameters<typeof tenant>[0] = this.db) {
    return new StickyRepository(tenant(q, accountId));
  }

  private nowSec() {
    return Math.floor(this.clock.now() / 1000);
  }

  /** A CLI must be one of the account's DIDs (1505). */
  private async cliOf(accountId: number, raw: unknown): Promise<string> {
    const cli = didDigits(raw);
    if (cli === null || (await this.dids.notOwned(accountId, [cli])).length > 0) throw directoryError(1505, `${String(raw)} is not a DID of this account`);
    return cli;
  }

  async set(accountId: number, contact: string, input: { agentId: number; type: unknown; expiry: unknown; cli?: unknown; groupid?: unknown }): Promise<void> {
    const scope = parseScope(input.type);
    const expiry = parseExpiry(input.expiry);
    const agent = await this.agents.find(accountId, input.agentId);
    if (!agent) throw directoryError(1501, `agent ${input.agentId} does not exist`);
    if (Number(agent.status) !== 1) throw directoryError(1501, `agent ${input.agentId} is not active`);
    let cli = '';
    let groupId = 0;
    if (scope !== 'all') {
      if (!present(input.cli)) throw fail(1000, `cli is required for type ${scope}`);
      cli = await this.cliOf(accountId, input.cli);
    }
    if (scope === 'cli_group') {
      if (!present(input.groupid)) throw fail(1000, 'groupid is required for type cli_group');
      groupId = groupIdOf(input.groupid);
      if (!(await this.groups.exists(accountId, groupId))) throw directoryError(1506, `group ${groupId}`);
      if (!(await this.agents.inGroup(accountId, agent.id, groupId))) throw directoryError(1507, `agent ${agent.id} is not in group ${groupId}`);
    }
    await this.repo(accountId).upsert(contact, { scope, cli, groupId, agentId: agent.id, expiry }, this.nowSec());
  }

  /** The contact's active settings, narrowed by the optional filters; [] when none. */
  async get(accountId: number, contact: string, f: StickyFilter): Promise<StickyView[]> {
    const scope = present(f.type) ? parseScope(f.type) : undefined;
    const cli = present(f.cli) ? didDigits(f.cli) : undefined;
    if (cli === null) throw directoryError(1505, `${String(f.cli)} is not a phone number`);
    const groupId = present(f.groupid) ? groupIdOf(f.groupid) : undefined;
    let expiry: number | undefined;
    if (present(f.expiry)) {
      const n = integer(f.expiry);
      if (n === null) throw directoryError(1509, 'expiry must be an integer');
      if (isMilliseconds(n)) throw fail(1001, secondsExpected('expiry', n));
      expiry = n;
    }
    const rows = await this.repo(accountId).active(contact, this.nowSec());
    return rows
      .filter(
        (r) =>
          (scope === undefined || r.scope === scope) &&
          (f.agentId === undefined || r.agentId === f.agentId) &&
          (cli === undefined || r.cli === cli) &&
          (groupId === undefined || (r.scope === 'cli_group' && r.groupId === groupId)) &&
          (expiry === undefined || r.expiry === expiry),
      )
      .map(view);
  }

  /**
   * removeSticky (PRODUCT.md §5): with agentId, that agent's settings of the
   * scope; without, every setting of the scope (narrowed by cli / groupid when
   * given); type all without agentId: every setting of the contact. Returns
   * how many active settings were removed (expired matches are cleaned up too).
   */
  async remove(accountId: number, contact: string, f: { type: unknown; agentId?: number; cli?: unknown; groupid?: unknown }): Promise<number> {
    const scope = parseScope(f.type);
    const cli = present(f.cli) ? didDigits(f.cli) : undefined;
    if (cli === null) throw directoryError(1505, `${String(f.cli)} is not a phone number`);
    const groupId = present(f.groupid) ? groupIdOf(f.groupid) : undefined;
    const everything = scope === 'all' && f.agentId === undefined;
    const now = this.nowSec();
    return this.db.transaction(async (tx) => {
      const repo = this.repo(accountId, tx);
      const matches = (await repo.all(contact)).filter(
        (r) =>
          everything ||
          (r.scope === scope &&
            (f.agentId === undefined || r.agentId === f.agentId) &&
            (cli === undefined || r.cli === cli) &&
            (groupId === undefined || r.groupId === groupId)),
      );
      for (const r of matches) await repo.remove(contact, r);
      return matches.filter((r) => r.expiry === -1 || r.expiry > now).length;
    });
  }

  /** Active settings of the contact (routing), most specific first. */
  active(accountId: number, contact: string): Promise<StickyRow[]> {
    return this.repo(accountId).active(contact, this.nowSec());
  }
}
