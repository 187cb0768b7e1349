import type { Principal } from '../../auth/principal.js';
import type { Clock } from '../../clock.js';
import { tenant } from '../../db/tenant.js';
import type { Database } from '../../db/types.js';
import { agentError, fail } from '../../errors/catalogue.js';
import type { AccountService } from '../account/account.service.js';
import type { AgentService } from '../agent/agent.service.js';
import type { DncService } from '../directory/dnc.service.js';
import type { LiveStateService } from '../events/live-state.service.js';
import type { ContactListsPort } from './contact-lists.port.js';
import type { Dialer } from './dialer.js';
import { DialerRepository } from './dialer.repository.js';

/** How long `campaign/preview` holds a contact for its agent (PRODUCT.md §13). */
export const PREVIEW_HOLD_SECS = 60;

export interface CampaignStatus {
  state: string;
  mode: string;
  dialLevel: number;
  lines: number;
  agents: { available: number; onCall: number; wrapUp: number };
  contacts: { total: number; dialable: number; scheduled: number; done: number; excluded: number };
  window: { humanAnswered: number; abandoned: number; abandonRate: number };
}

export interface CampaignCallsServiceDeps {
  db: Database;
  clock: Clock;
  dialer: Dialer;
  accounts: AccountService;
  agents: AgentService;
  liveState: LiveStateService;
  dnc: DncService;
  lists: ContactListsPort;
  /** Told after a disposition was stored (a push report held for it is due). */
  onDisposed: (accountId: number, callId: string) => Promise<void>;
}

/**
 * What people do with campaign calls: an agent's preview (reserve, dial,
 * skip), the disposition after a call, and campaign/status.
 */
export class CampaignCallsService {
  private readonly db: Database;

  constructor(private readonly d: CampaignCallsServiceDeps) {
    this.db = d.db;
  }

  private nowSec() {
    return Math.floor(this.d.clock.now() / 1000);
  }

  private repo(accountId: number, q = this.db as Parameters<typeof tenant>[0]) {
    return new DialerRepository(tenant(q, accountId));
  }

  private async runningPreview(principal: Principal, campaignId: number) {
    const c = await this.d.dialer.campaign(principal.accountId, campaignId);
    if (!c) throw fail(1012, `campaign ${campaignId}`);
    if (c.mode !== 'preview') throw agentError(1524, `campaign ${campaignId} is ${c.mode}, not preview`);
    if (c.state !== 'running') throw agentError(1524, `campaign ${campaignId} is ${c.state}`);
    const agentId = principal.agentId!;
    if (!(await this.d.agents.inGroup(principal.accountId, agentId, c.groupId))) throw agentError(1509, `agent ${agentId} is not in group ${c.groupId}`);
    return { c, agentId };
  }

  /** campaign/preview: the next dialable contact, held for the agent 60 s (null when none is dialable now). */
  async preview(principal: Principal, campaignId: number) {
    const { c, agentId } = await this.runningPreview(principal, campaignId);
    const accountId = principal.accountId;
    const now = this.nowSec();
    const repo = this.repo(accountId);
    const { timezone } = await this.d.accounts.settings(accountId);
    // New list contacts are read in here too: preview does not wait for the dialer's tick.
    await this.d.dialer.readContacts(accountId, c, now);
    // The one already held for this agent first (asking twice does not take a second contact).
    const held = await repo.heldFor(campaignId, agentId, now);
    for (const a of [...(held ? [held] : []), ...(await repo.candidates(campaignId, now, c.maxAttempts, 50))]) {
      const ok = await this.d.dialer.compliant(accountId, c, a, now, timezone);
      if (!ok) continue;
      await repo.reserve(campaignId, a.contact_id, agentId, now + PREVIEW_HOLD_SECS);
      return {
        contactId: a.contact_id,
        clId: a.cl_id,
        number: ok.number,
        attempts: a.attempts,
        reservedUntil: now + PREVIEW_HOLD_SECS,
        record: { number: ok.contact.number, name: ok.contact.name, timezone: ok.contact.timezone, fields: ok.contact.fields },
      };
    }
    return null;
  }

  /** campaign/previewDial: dials the contact held for this agent; the call rings the agent first. */
  async previewDial(principal: Principal, campaignId: number, contactId: number): Promise<string> {
    const { c, agentId } = await this.runningPreview(principal, campaignId);
    const accountId = principal.accountId;
    const now = this.nowSec();
    const a = await this.repo(accountId).attempt(campaignId, contactId);
    if (!a) throw fail(1012, `contact ${contactId} of campaign ${campaignId}`);
    if (a.reserved_by !== agentId || a.reserved_until <= now)
      throw agentError(1524, `contact ${contactId} is not held for agent ${agentId} (campaign/preview first)`);
    // Compliance again at the moment of dialling, in the dial's transaction: the minute the agent read the record may have changed it.
    const placed = await this.d.dialer.dialHeld(accountId, c, contactId, agentId);
    if ('callId' in placed) return placed.callId;
    if (placed.why === 'number') throw agentError(1501, `a call to ${a.number} is in progress`);
    if (placed.why === 'lines') throw agentError(1524, `campaign ${campaignId} has maxLines (${c.maxLines}) calls in progress`);
    throw agentError(1524, `contact ${contactId} may not be dialled now`);
  }

  /** campaign/previewSkip: the contact goes back (dialable again for anyone). */
  async previewSkip(principal: Principal, campaignId: number, contactId: number): Promise<void> {
    const { agentId } = await this.runningPreview(principal, campaignId);
    const a = await this.repo(principal.accountId).attempt(campaignId, contactId);
    if (!a || a.reserved_by !== agentId) throw fail(1012, `contact ${contactId} held for agent ${agentId}`);
    await this.repo(principal.accountId).reserve(campaignId, contactId, null, 0);
  }

  /** The campaign of a campaign call (the audit record's target), or null. */
  async campaignOfCall(accountId: number, callId: string): Promise<number | null> {
    return (await this.repo(accountId).call(callId))?.campaign_id ?? null;
  }

  /**
   * campaign/disposition: by the agent on the call or a campaign.manage
   * principal; an unknown code is 1000. Final: the contact is done; callback:
   * due at `callbackAt`; dnc: done and a permanent DNC on the number; another
   * code that is not final: dialled again after the no-answer delay.
   */
  async disposition(principal: Principal, input: { callId: string; disposition: string; callbackAt?: number; notes?: string }): Promise<void> {
    const accountId = principal.accountId;
    const now = this.nowSec();
    const call = await this.repo(accountId).call(input.callId);
    if (!call) throw fail(1012, `campaign call ${input.callId}`);
    const isAgentOnCall = principal.kind === 'agent' && call.agent_id !== null && principal.agentId === call.agent_id;
    if (!isAgentOnCall && !principal.permissions.has('campaign.manage'))
      throw fail(1015, 'only the agent on the call or a campaign.manage principal may set its disposition');
    const c = await this.d.dialer.campaign(accountId, call.campaign_id);
    if (!c) throw fail(1012, `campaign ${call.campaign_id}`);
    const code = c.dispositions.find((d) => d.code === input.disposition);
    if (!code) throw fail(1000, `disposition ${input.disposition} is not one of campaign ${c.campaignId}'s (${c.dispositions.map((d) => d.code).join(', ')})`);
    if (input.disposition === 'callback' && (input.callbackAt === undefined || input.callbackAt <= now))
      throw fail(1000, 'callbackAt (a future Unix time) is required for a callback');
    if (call.agent_answered_at === null) throw agentError(1524, `call ${input.callId} was not answered by an agent`);
    await this.db.transaction(async (tx) => {
      const repo = this.repo(accountId, tx);
      await repo.dispose(call.call_id, code.code, now, input.notes ?? null);
      if (code.code === 'dnc') await this.d.dnc.set(accountId, call.number, -1);
      const contact = await repo.attempt(call.campaign_id, call.contact_id);
      if (!contact || contact.last_call !== call.call_id) return;
      const inCall = contact.in_call !== null;
      if (code.final) await repo.afterCall(call.campaign_id, call.contact_id, { nextAt: now, done: true, awaiting: null, outcome: code.code });
      else if (code.code === 'callback') {
        await repo.afterCall(call.campaign_id, call.contact_id, { nextAt: input.callbackAt!, done: false, awaiting: null, outcome: code.code });
        await repo.markCallback(call.campaign_id, call.contact_id, input.callbackAt!);
      } else await repo.afterCall(call.campaign_id, call.contact_id, { nextAt: now + c.retryDelays.noAnswer, done: false, awaiting: null, outcome: code.code });
      // Set during the call: the contact stays in it until its end.
      if (inCall) await repo.keepInCall(call.campaign_id, call.contact_id, call.call_id);
    });
    await this.d.onDisposed(accountId, call.call_id);
  }

  /** campaign/status (PRODUCT.md §13). */
  async status(accountId: number, campaignId: number): Promise<CampaignStatus> {
    const c = await this.d.dialer.campaign(accountId, campaignId);
    if (!c) throw fail(1012, `campaign ${campaignId}`);
    const now = this.nowSec();
    const repo = this.repo(accountId);
    const progress = await repo.inProgress(campaignId);
    const members = await this.d.agents.groupMembers(accountId, c.groupId);
    const live = await this.d.liveState.agents(accountId);
    const held = await repo.heldAgents(now);
    let available = 0;
    let onCall = 0;
    let wrapUp = 0;
    for (const id of members) {
      const a = live.get(id);
      if (!a || !a.loggedIn) continue;
      if (a.callId !== null || a.ringCall !== null || progress.agents.includes(id)) onCall++;
      else if (a.wrapupAt !== null) wrapUp++;
      else if (a.breakReason === null && !held.has(id)) available++;
    }
    const s = await repo.contactStates(campaignId, now, c.maxAttempts);
    const counts = await this.d.lists.contactCounts(accountId, c.clIds);
    // Contacts not read from the lists yet are dialable ones still ahead.
    const unread = Math.max(0, counts.live - s.rows);
    const w = await repo.window(campaignId, this.d.dialer.windowStart(c, now));
    return {
      state: c.state,
      mode: c.mode,
      dialLevel:
        available + progress.agents.length > 0 ? Math.round((progress.lines / Math.max(1, available + progress.agents.length)) * 100) / 100 : progress.lines,
      lines: progress.lines,
      agents: { available, onCall, wrapUp },
      contacts: { total: counts.live, dialable: s.due + unread, scheduled: s.scheduled, done: s.done, excluded: s.excluded },
      window: {
        humanAnswered: w.humanAnswered,
        abandoned: w.abandoned,
        abandonRate: w.humanAnswered > 0 ? Math.round((w.abandoned / w.humanAnswered) * 10_000) / 100 : 0,
      },
    };
  }
}
