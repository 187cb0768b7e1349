import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';
import type { TelephonyEvent } from '../events/event-types.js';
import type { OutboundObserver } from '../events/events.service.js';
import type { CampaignSettings, RetryOutcome } from './campaign-settings.js';
import { CampaignRepository } from './campaign.repository.js';
import { campaignOf } from './campaign.service.js';
import { DialerRepository, type CallRow } from './dialer.repository.js';

/** The call ids the dialer issues (`obd-<uuid>`): the events of these calls come to CampaignOutcomes. */
export const CAMPAIGN_CALL_PREFIX = 'obd-';

/** How long an answered call waits for its disposition before it counts as `completed` (PRODUCT.md §13). */
export const DISPOSITION_WAIT_SECS = 600;

/** The outcome key of `retryDelays` for an outcome, or null when the outcome does not retry. */
export function retryKey(outcome: string): RetryOutcome | null {
  switch (outcome) {
    case 'no_answer':
      return 'noAnswer';
    case 'busy':
    case 'failed':
    case 'machine':
    case 'abandoned':
      return outcome;
    default:
      return null;
  }
}

/**
 * A call's outcome from its end: the service's own `abandoned` (decided at
 * connectSecs) stands; the switch's dial reasons; an agent answered →
 * `answered` (it waits for its disposition); a person answered and no agent
 * → `abandoned`; a machine → `machine`; else `failed`.
 */
export function outcomeOf(call: CallRow, reason: string | undefined, machineAction: CampaignSettings['machineAction']): string {
  if (call.outcome === 'abandoned') return 'abandoned';
  if (reason === 'no_answer' || reason === 'busy' || reason === 'failed') return reason;
  if (call.agent_answered_at !== null && call.answered_by !== null && !(call.answered_by === 'machine' && machineAction === 'hangup')) return 'answered';
  if (reason === 'machine' || call.answered_by === 'machine') return 'machine';
  if (call.answered_by === 'human' || reason === 'abandoned') return 'abandoned';
  // A progressive call whose agent answered but the customer never did.
  return call.agent_answered_at !== null && call.connected_at === null ? 'no_answer' : 'failed';
}

/**
 * Follows campaign calls through their events (the events module's outbound
 * observer), in the ingest batch's transaction: connection and who answered,
 * the agent's answer, the end; then the contact's next attempt by outcome.
 */
export class CampaignOutcomes implements OutboundObserver {
  owns(callId: string): boolean {
    return callId.startsWith(CAMPAIGN_CALL_PREFIX);
  }

  async observe(tx: Queryable, accountId: number, events: TelephonyEvent[]): Promise<void> {
    const repo = new DialerRepository(tenant(tx, accountId));
    for (const ev of events) {
      const call = await repo.call(ev.callId!);
      if (!call) continue;
      // Stored as whole seconds: the switch may send fractions.
      const ts = Math.floor(ev.ts);
      switch (ev.type) {
        case 'call.connected':
          await repo.callProgress(call.call_id, { connectedAt: ts, answeredBy: ev.answeredBy });
          break;
        case 'call.answered':
          await repo.callProgress(call.call_id, { agentAnsweredAt: ts, agentId: ev.agentId });
          break;
        case 'call.ended':
          await this.ended(tx, accountId, call, ev, ts);
          break;
        default:
          break;
      }
    }
  }

  private async ended(tx: Queryable, accountId: number, call: CallRow, ev: TelephonyEvent, ts: number): Promise<void> {
    if (call.ended_at !== null) return;
    const t = tenant(tx, accountId);
    const repo = new DialerRepository(t);
    const row = await new CampaignRepository(t).find(call.campaign_id);
    const settings = row ? campaignOf(row) : null;
    const outcome = outcomeOf(call, ev.reason, settings?.machineAction ?? 'hangup');
    await repo.endCall(call.call_id, ts, outcome);
    await afterOutcome(repo, call, outcome, ts, settings);
  }
}

/** The contact's next state after a call's outcome: retry after its delay, wait for a disposition, or done. */
export async function afterOutcome(repo: DialerRepository, call: CallRow, outcome: string, at: number, settings: CampaignSettings | null): Promise<void> {
  const contact = await repo.attempt(call.campaign_id, call.contact_id);
  if (!contact) return;
  if (outcome === 'answered' && call.disposition !== null) {
    await repo.leaveCall(call.campaign_id, call.contact_id, call.call_id);
    return;
  }
  if (outcome === 'answered') {
    await repo.afterCall(call.campaign_id, call.contact_id, { nextAt: at + DISPOSITION_WAIT_SECS, done: false, awaiting: call.call_id, outcome });
    return;
  }
  const key = retryKey(outcome);
  const delay = key !== null && settings ? settings.retryDelays[key] : 0;
  const exhausted = !settings || key === null || contact.attempts >= settings.maxAttempts;
  await repo.afterCall(call.campaign_id, call.contact_id, { nextAt: at + delay, done: exhausted, awaiting: null, outcome });
}
