import type { Queryable } from '../../db/types.js';
import type { AgentLive } from './live.types.js';

/** What a logged-in agent was doing during a span (PRODUCT.md §11: available is none of the others). */
export type AgentTimeKind = 'available' | 'ringing' | 'talk' | 'hold' | 'wrap' | 'break';

/**
 * A stretch of constant agent state, closed by the state machine when the
 * agent's state changes (or a call of theirs goes on or off hold): the
 * agent's state history, as the reports need it. `callId` is the call a
 * wrap-up span belongs to (named by agent.wrapup.start, else the agent's
 * last answered call); `reason` the break reason.
 */
export interface AgentSpan {
  agentId: number;
  from: number;
  to: number;
  kind: AgentTimeKind;
  reason: string | null;
  callId: string | null;
}

/**
 * What follows agent time: told, in the ingest transaction, of the spans a
 * batch closed (after the batch's ended calls reached the call history). The
 * events module declares it; the report module implements it, so events does
 * not depend on reports.
 */
export interface AgentTimeSink {
  apply(tx: Queryable, accountId: number, spans: readonly AgentSpan[]): Promise<void>;
}

export const NO_AGENT_TIME: AgentTimeSink = { apply: async () => {} };

/** The span an agent's current state makes from `from` to `to` (null when logged out or empty). */
export function spanOf(a: AgentLive, from: number, to: number, onHold: boolean): AgentSpan | null {
  if (!a.loggedIn || !(to > from)) return null;
  const kind: AgentTimeKind =
    a.callId !== null
      ? onHold
        ? 'hold'
        : 'talk'
      : a.ringCall !== null
        ? 'ringing'
        : a.wrapupAt !== null
          ? 'wrap'
          : a.breakReason !== null
            ? 'break'
            : 'available';
  return {
    agentId: a.agentId,
    from,
    to,
    kind,
    reason: kind === 'break' ? a.breakReason : null,
    callId: kind === 'wrap' ? a.wrapCall : kind === 'talk' || kind === 'hold' ? a.callId : null,
  };
}
