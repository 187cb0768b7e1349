import type { CallRecord } from '../modules/calls/call-record.js';
import type { AgentSpan } from '../modules/events/agent-time.js';
import { mulberry32 } from './history-generator.js';

/** A gap this long between an agent's calls ends the session (logged out in between). */
const SESSION_GAP = 2 * 3600;
const BREAK_REASONS = ['lunch', 'coffee', 'training', 'meeting'];

interface AgentCursor {
  /** End of the agent's last span: later spans start here at the earliest (no overlap). */
  last: number;
}

/**
 * The agent state history of a generated call history (`seed --calls`), as
 * the spans the events module closes at ingest: each agent logs in a little
 * before a run of their calls and out a little after it, rings and talks
 * (with the call's hold) exactly as the calls say, wraps up after an answered
 * call (naming it), and takes a break with a reason in some long gaps. Fed
 * calls in queued-time order; an offer that would overlap the agent's
 * previous one (the call generator does not keep agents exclusive) is cut to
 * start where that one ended, so the agent's time never counts twice.
 */
export class AgentHistoryBuilder {
  private readonly agents = new Map<number, AgentCursor>();
  private readonly rnd: () => number;

  constructor(seed = 777) {
    this.rnd = mulberry32(seed);
  }

  /** Spans of these calls' offers and the time around them. */
  add(records: readonly CallRecord[]): AgentSpan[] {
    const out: AgentSpan[] = [];
    const span = (agentId: number, from: number, to: number, kind: AgentSpan['kind'], reason: string | null = null, callId: string | null = null) => {
      if (to > from) out.push({ agentId, from, to, kind, reason, callId });
    };
    for (const r of records) {
      for (const h of r.hits) {
        let cur = this.agents.get(h.agentId);
        const ringFrom = Math.max(h.ringAt, cur?.last ?? -Infinity);
        if (!cur || ringFrom - cur.last > SESSION_GAP) {
          if (cur) this.logout(h.agentId, cur, out);
          // Log in 5–30 minutes before the first offer.
          cur = { last: ringFrom - 300 - Math.floor(this.rnd() * 1500) };
          this.agents.set(h.agentId, cur);
        }
        const gap = ringFrom - cur.last;
        if (gap > 1200 && this.rnd() < 0.5) {
          const start = cur.last + Math.floor(gap / 4);
          const end = start + Math.min(Math.floor(gap / 2), 900 + Math.floor(this.rnd() * 2700));
          span(h.agentId, cur.last, start, 'available');
          span(h.agentId, start, end, 'break', BREAK_REASONS[Math.floor(this.rnd() * BREAK_REASONS.length)]!);
          span(h.agentId, end, ringFrom, 'available');
        } else {
          span(h.agentId, cur.last, ringFrom, 'available');
        }
        const ringEnd = Math.max(ringFrom, h.ringAt + h.ringSecs);
        span(h.agentId, ringFrom, ringEnd, 'ringing');
        cur.last = ringEnd;
        if (h.answered && r.answeredAt !== null) {
          // Talk, with the call's hold in the middle of it, until the call ends; then a wrap-up naming it.
          const talkEnd = Math.max(ringEnd, r.endedAt);
          const holdFrom = Math.min(talkEnd, ringEnd + Math.floor((talkEnd - ringEnd - r.holdSecs) / 2));
          const holdTo = Math.min(talkEnd, holdFrom + r.holdSecs);
          span(h.agentId, ringEnd, holdFrom, 'talk', null, r.callId);
          span(h.agentId, holdFrom, holdTo, 'hold', null, r.callId);
          span(h.agentId, holdTo, talkEnd, 'talk', null, r.callId);
          const wrapEnd = talkEnd + 10 + Math.floor(this.rnd() * 50);
          span(h.agentId, talkEnd, wrapEnd, 'wrap', null, r.callId);
          cur.last = wrapEnd;
        }
      }
    }
    return out;
  }

  /** Every agent still logged in logs out (the end of the history). */
  finish(): AgentSpan[] {
    const out: AgentSpan[] = [];
    for (const [agentId, cur] of this.agents) this.logout(agentId, cur, out);
    this.agents.clear();
    return out;
  }

  private logout(agentId: number, cur: AgentCursor, out: AgentSpan[]): void {
    // Available 1–15 minutes after the last call, then logged out.
    const end = cur.last + 60 + Math.floor(this.rnd() * 840);
    out.push({ agentId, from: cur.last, to: end, kind: 'available', reason: null, callId: null });
  }
}
