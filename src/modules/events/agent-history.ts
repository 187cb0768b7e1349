import { newAgent, type AgentLive } from './live.types.js';

/**
 * Agents' state over time (table agent_state_log): one row per agent per
 * accepted event that changed it, holding the state after the change. An
 * event older than the agent's live state (a day imported after the fact) is
 * judged against the state at its own `ts` read from here, and recorded here
 * only: it never moves the live row (docs/events.md, "Past events").
 */
export interface AgentStateRow {
  agent_id: number;
  ts: number;
  seq: number;
  logged_in: number;
  login_type: string | null;
  break_reason: string | null;
  wrapup_at: number | null;
  ring_call: string | null;
  ring_at: number | null;
  call_id: string | null;
  call_at: number | null;
}

/** An event this much (seconds) older than the agent's last applied one is a past event, not a reordering. */
export const PAST_AFTER_SECS = 60;

function rowOf(a: AgentLive, ts: number, seq: number): AgentStateRow {
  return {
    agent_id: a.agentId,
    ts,
    seq,
    logged_in: a.loggedIn ? 1 : 0,
    login_type: a.loginType,
    break_reason: a.breakReason,
    wrapup_at: a.wrapupAt,
    ring_call: a.ringCall,
    ring_at: a.ringAt,
    call_id: a.callId,
    call_at: a.callAt,
  };
}

function before(x: { ts: number; seq: number }, y: { ts: number; seq: number }): boolean {
  return x.ts < y.ts || (x.ts === y.ts && x.seq < y.seq);
}

export class AgentHistory {
  /** Per loaded agent, its rows in (ts, seq) order: the last one at or before a batch's earliest time, then the later ones. */
  private readonly rows = new Map<number, AgentStateRow[]>();
  /** Rows to write, one per (agent, event). */
  readonly written = new Map<string, AgentStateRow>();

  constructor(loaded: Map<number, AgentStateRow[]> = new Map()) {
    for (const [id, list] of loaded)
      this.rows.set(
        id,
        [...list].sort((x, y) => (before(x, y) ? -1 : before(y, x) ? 1 : 0)),
      );
  }

  loaded(agentId: number): boolean {
    return this.rows.has(agentId);
  }

  /** The agent's state at `ts` (after every recorded change at or before it), as a detached AgentLive. */
  stateAt(agentId: number, ts: number): AgentLive {
    const list = this.rows.get(agentId) ?? [];
    let hit: AgentStateRow | undefined;
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i]!.ts <= ts) {
        hit = list[i];
        break;
      }
    }
    const a = newAgent(agentId);
    if (!hit) return a;
    a.loggedIn = hit.logged_in === 1;
    a.loginType = hit.login_type;
    a.breakReason = hit.break_reason;
    a.wrapupAt = hit.wrapup_at;
    a.ringCall = hit.ring_call;
    a.ringAt = hit.ring_at;
    a.callId = hit.call_id;
    a.callAt = hit.call_at;
    a.lastTs = hit.ts;
    return a;
  }

  /** Records the agent's state after event `seq` at `ts` (the last call for one event wins). */
  record(a: AgentLive, ts: number, seq: number): void {
    const row = rowOf(a, ts, seq);
    const key = `${a.agentId}:${seq}`;
    const list = this.rows.get(a.agentId);
    if (list) {
      const old = this.written.get(key);
      if (old) list.splice(list.indexOf(old), 1);
      let i = list.length;
      while (i > 0 && before(row, list[i - 1]!)) i--;
      list.splice(i, 0, row);
    }
    this.written.set(key, row);
  }
}
