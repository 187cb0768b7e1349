import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';
import type { AgentSpan, AgentTimeSink } from '../events/agent-time.js';
import { CAMPAIGN_CALL_PREFIX } from './outcomes.js';

/**
 * Wrap-up time of campaign calls (migration 147): of the agent spans a batch
 * closed, the wrap-up spans that name a campaign call add to its
 * `wrap_secs` (report/campaign's `aht`). Other spans cost one test each.
 */
export class CampaignWrapSink implements AgentTimeSink {
  async apply(tx: Queryable, accountId: number, spans: readonly AgentSpan[]): Promise<void> {
    let byCall: Map<string, number> | null = null;
    for (const s of spans) {
      if (s.kind !== 'wrap' || s.callId === null || !s.callId.startsWith(CAMPAIGN_CALL_PREFIX)) continue;
      byCall ??= new Map();
      byCall.set(s.callId, (byCall.get(s.callId) ?? 0) + (s.to - s.from));
    }
    if (!byCall) return;
    const t = tenant(tx, accountId);
    for (const [callId, secs] of byCall) {
      await t.run('UPDATE campaign_calls SET wrap_secs = wrap_secs + $2 WHERE account_id = $1 AND call_id = $3', [secs, callId]);
    }
  }
}

/** Agent time to several sinks, in order. */
export function allAgentTime(...sinks: AgentTimeSink[]): AgentTimeSink {
  return {
    async apply(tx, accountId, spans) {
      for (const s of sinks) await s.apply(tx, accountId, spans);
    },
  };
}
