import type { Clock } from '../../clock.js';
import { tenant } from '../../db/tenant.js';
import type { Database, Queryable } from '../../db/types.js';
import { agentError, fail } from '../../errors/catalogue.js';
import { didDigits, type DidService } from '../did/did.service.js';
import type { GroupService } from '../group/group.service.js';
import {
  defaultSettings,
  mergeSettings,
  parseSettings,
  type CampaignSettings,
  type CampaignState,
  type Mode,
  type SettingsPatch,
} from './campaign-settings.js';
import { CampaignRepository, type CampaignRow } from './campaign.repository.js';
import type { ContactListsPort } from './contact-lists.port.js';

export interface Campaign extends CampaignSettings {
  campaignId: number;
  name: string;
  state: CampaignState;
  mode: Mode;
  clIds: number[];
  groupId: number;
  did: string;
  createdAt: number;
  startedAt: number | null;
}

export interface CampaignInput extends SettingsPatch {
  name?: string;
  clIds?: number[];
  groupId?: number;
  did?: unknown;
  mode?: Mode;
}

export function campaignOf(r: CampaignRow): Campaign {
  return {
    campaignId: Number(r.campaign_id),
    name: r.name,
    state: r.state as CampaignState,
    mode: r.mode as Mode,
    clIds: JSON.parse(r.cl_ids) as number[],
    groupId: Number(r.group_id),
    did: r.did,
    ...parseSettings(r.settings),
    createdAt: Number(r.created_at),
    startedAt: r.started_at === null ? null : Number(r.started_at),
  };
}

function settingsOf(c: CampaignSettings): CampaignSettings {
  const {
    dialRatio,
    maxAbandonRate,
    abandonWindow,
    connectSecs,
    callingHours,
    timezone,
    maxAttempts,
    retryDelays,
    ringSecs,
    amd,
    machineAction,
    maxLines,
    dispositions,
  } = c;
  return {
    dialRatio,
    maxAbandonRate,
    abandonWindow,
    connectSecs,
    callingHours,
    timezone,
    maxAttempts,
    retryDelays,
    ringSecs,
    amd,
    machineAction,
    maxLines,
    dispositions,
  };
}

/**
 * Which transitions each operation makes (PRODUCT.md §13): draft → running
 * ⇄ paused → stopped; running → completed is the dialer's alone.
 */
const TRANSITIONS: Record<'start' | 'pause' | 'stop', { from: CampaignState[]; to: CampaignState }> = {
  start: { from: ['draft', 'paused'], to: 'running' },
  pause: { from: ['running'], to: 'paused' },
  stop: { from: ['draft', 'running', 'paused'], to: 'stopped' },
};

export interface CampaignServiceDeps {
  db: Database;
  clock: Clock;
  groups: GroupService;
  dids: DidService;
  lists: Pick<ContactListsPort, 'missingLists'>;
}

/** Campaigns: their settings and states (the dialer, dialer.worker.ts, runs the running ones). */
export class CampaignService {
  private readonly db: Database;

  constructor(private readonly deps: CampaignServiceDeps) {
    this.db = deps.db;
  }

  private repo(accountId: number, q: Queryable = this.db) {
    return new CampaignRepository(tenant(q, accountId));
  }

  private nowSec() {
    return Math.floor(this.deps.clock.now() / 1000);
  }

  /** Checks the references of a create or update: group 1006, lists 1012, DID 1000 naming did. */
  private async checkRefs(accountId: number, input: CampaignInput): Promise<string | undefined> {
    if (input.groupId !== undefined && !(await this.deps.groups.exists(accountId, input.groupId))) throw fail(1006, `group ${input.groupId}`);
    if (input.clIds !== undefined) {
      const missing = await this.deps.lists.missingLists(accountId, [...new Set(input.clIds)]);
      if (missing.length > 0) throw fail(1012, `contact list ${missing.join(', ')}`);
    }
    if (input.did === undefined) return undefined;
    const did = didDigits(input.did);
    if (did === null || (await this.deps.dids.notOwned(accountId, [did])).length > 0) throw fail(1000, `did ${String(input.did)} is not a DID of this account`);
    return did;
  }

  async create(accountId: number, input: CampaignInput & { name: string; clIds: number[]; groupId: number; mode: Mode }): Promise<number> {
    const did = await this.checkRefs(accountId, input);
    const settings = mergeSettings(defaultSettings(), input);
    const now = this.nowSec();
    for (let attempt = 0; attempt < 20; attempt++) {
      const id = await this.db.transaction(async (tx) => {
        const repo = this.repo(accountId, tx);
        const next = await repo.nextId();
        const row = {
          campaign_id: next,
          name: input.name.trim(),
          state: 'draft',
          mode: input.mode,
          group_id: input.groupId,
          did: did!,
          cl_ids: JSON.stringify([...new Set(input.clIds)]),
          settings: JSON.stringify(settings),
          created_at: now,
        };
        return (await repo.insert(row)) ? next : null;
      });
      if (id !== null) return id;
    }
    throw agentError(1522, 'could not allocate a campaign id; retry');
  }

  /** Merges the given fields; `mode` only while not running (1524). */
  async update(accountId: number, campaignId: number, input: CampaignInput): Promise<void> {
    const did = await this.checkRefs(accountId, input);
    await this.db.transaction(async (tx) => {
      const repo = this.repo(accountId, tx);
      const row = await repo.findForUpdate(campaignId);
      if (!row) throw fail(1012, `campaign ${campaignId}`);
      if (input.mode !== undefined && input.mode !== row.mode && row.state === 'running') {
        throw agentError(1524, `campaign ${campaignId} is running: pause it before changing its mode`);
      }
      const settings = mergeSettings(parseSettings(row.settings), input);
      await repo.update({
        ...row,
        name: input.name?.trim() ?? row.name,
        mode: input.mode ?? row.mode,
        group_id: input.groupId ?? row.group_id,
        did: did ?? row.did,
        cl_ids: input.clIds ? JSON.stringify([...new Set(input.clIds)]) : row.cl_ids,
        settings: JSON.stringify(settingsOf(settings)),
        updated_at: this.nowSec(),
      });
    });
  }

  async list(accountId: number): Promise<Campaign[]> {
    return (await this.repo(accountId).list()).map(campaignOf);
  }

  async get(accountId: number, campaignId: number, q: Queryable = this.db): Promise<Campaign> {
    const row = await this.repo(accountId, q).find(campaignId);
    if (!row) throw fail(1012, `campaign ${campaignId}`);
    return campaignOf(row);
  }

  /** start, pause or stop; 1524 when the campaign is not in a state the operation leaves. */
  async transition(accountId: number, campaignId: number, op: keyof typeof TRANSITIONS): Promise<CampaignState> {
    const { from, to } = TRANSITIONS[op];
    return this.db.transaction(async (tx) => {
      const repo = this.repo(accountId, tx);
      const row = await repo.findForUpdate(campaignId);
      if (!row) throw fail(1012, `campaign ${campaignId}`);
      if (!from.includes(row.state as CampaignState)) throw agentError(1524, `campaign ${campaignId} is ${row.state}: ${op} needs ${from.join(' or ')}`);
      const now = this.nowSec();
      await repo.setState(campaignId, to, now, to === 'running' ? now : null);
      return to;
    });
  }

  /** Only a draft, stopped or completed campaign (1524 otherwise). */
  async remove(accountId: number, campaignId: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      const repo = this.repo(accountId, tx);
      const row = await repo.findForUpdate(campaignId);
      if (!row) throw fail(1012, `campaign ${campaignId}`);
      if (row.state === 'running' || row.state === 'paused') throw agentError(1524, `campaign ${campaignId} is ${row.state}: stop it first`);
      await repo.remove(campaignId);
    });
  }

  /** The contact-list module's `listInUse`: the first campaign, not stopped or completed, that dials `clId` (null: none). */
  async listInUse(accountId: number, clId: number): Promise<number | null> {
    for (const r of await this.repo(accountId).activeUsing()) if ((JSON.parse(r.cl_ids) as number[]).includes(clId)) return Number(r.campaign_id);
    return null;
  }
}
