import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';
import type { TelephonyEvent } from '../events/event-types.js';
import type { OutboundObserver } from '../events/events.service.js';
import type { CallRecord } from '../calls/call-record.js';
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
  /** `history`: where a dial the queue never saw is recorded when it ends (its push report, CallReport/list). */
  constructor(private readonly history: { record(tx: Queryable, accountId: number, records: CallRecord[]): Promise<void> } | null = null) {}

  owns(callId: string): boolean {
    return callId.startsWith(CAMPAIGN_CALL_PREFIX);
  }

  async complete(tx: Queryable, accountId: number, queued: TelephonyEvent[]): Promise<void> {
    const repo = new DialerRepository(tenant(tx, accountId));
    for (const ev of queued) {
      const call = await repo.call(ev.callId!);
      if (!call) continue;
      ev.campaignId ??= String(call.campaign_id);
      if (ev.retryOf === undefined && call.retry_of !== null) ev.retryOf = call.retry_of;
    }
  }

  async observe(tx: Queryable, accountId: number, events: TelephonyEvent[], unqueued: ReadonlySet<string> = new Set()): Promise<void> {
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
          await this.ended(tx, accountId, call, ev, ts, unqueued.has(call.call_id));
          break;
        default:
          break;
      }
    }
  }

  private async ended(tx: Queryable, accountId: number, call: CallRow, ev: TelephonyEvent, ts: number, unqueued: boolean): Promise<void> {
    if (call.ended_at !== null) return;
    const t = tenant(tx, accountId);
    const repo = new DialerRepository(t);
    const row = await new CampaignRepository(t).find(call.campaign_id);
    const settings = row ? campaignOf(row) : null;
    const outcome = outcomeOf(call, ev.reason, settings?.machineAction ?? 'hangup');
    await repo.endCall(call.call_id, ts, outcome);
    await afterOutcome(repo, call, outcome, ts, settings);
    if (unqueued && this.history) await this.history.record(tx, accountId, [unqueuedRecord(accountId, call, row?.did ?? null, ev.reason ?? outcome, ts)]);
  }
}

/**
 * The history record of a dial that never reached a queue (no answer, busy, a
 * machine, a person nobody took): no group, no offer; from the dial to the
 * end; a failed call with the dial's reason as `endReason` (as the events
 * module records the dial reasons of queued calls: the queue's figures leave
 * it out), so its push report and CallReport/list show it.
 */
export function unqueuedRecord(accountId: number, call: CallRow, did: string | null, reason: string, endedAt: number): CallRecord {
  const end = Math.max(endedAt, call.dialled_at);
  return {
    accountId,
    callId: call.call_id,
    queuedAt: call.dialled_at,
    endedAt: end,
    groupId: null,
    did,
    campaignId: String(call.campaign_id),
    direction: 'outbound',
    caller: call.number,
    retryOf: call.retry_of,
    answeredBy: null,
    answeredAt: null,
    talkSecs: 0,
    holdSecs: 0,
    waitSecs: end - call.dialled_at,
    outcome: 'failed',
    hits: [],
    endReason: reason,
    legs: [],
  };
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
