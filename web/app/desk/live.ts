import { signal } from '@preact/signals';
import { openStream, type ConnState, type StreamHandle } from '../../src/stream.js';
import { api, can, me, session } from '../lib/session.js';

/**
 * The agent desk's live model. The state shown is the switch's: Agent/desk at start, then the
 * stream's `agent` messages for this agent. A button press only asks (Agent/setState) and is
 * remembered as `pending` until the switch reports a state that matches it.
 */
export interface AgentLive {
  agentId: number;
  state: 'offline' | 'available' | 'break' | 'wrapup' | 'ringing' | 'oncall';
  loggedIn: boolean;
  breakReason: string | null;
  callId: string | null;
  ringingCallId: string | null;
  since: number | null;
  seq: number;
}

export interface LiveCall {
  callId: string;
  state: 'queued' | 'ringing' | 'connected' | 'ended';
  groupId: number | null;
  did: string | null;
  caller: string | null;
  campaignId: string | null;
  direction: string;
  agentId: number | null;
  ringingAgentId: number | null;
  endedAt?: number;
  outcome?: string;
  seq: number;
}

export interface DeskInfo {
  lstSync: number;
  agentId: number;
  name: string;
  groups: Array<{ groupId: number; name: string }>;
  breakReasons: string[];
  state: AgentLive | null;
}

export type Asked = 'ready' | 'break' | 'logged_out';

export const desk = signal<DeskInfo | null>(null);
export const agent = signal<AgentLive | null>(null);
/** The call offered to or connected with this agent (kept, marked ended, after it ends). */
export const call = signal<LiveCall | null>(null);
export const conn = signal<ConnState | 'none'>('none');
export const pending = signal<{ state: Asked; reason: string | null; at: number } | null>(null);
export const loadError = signal('');

/** Whether the switch's state is what was asked. */
export function matches(a: AgentLive | null, asked: { state: Asked; reason: string | null }): boolean {
  const s = a?.state ?? 'offline';
  if (asked.state === 'logged_out') return s === 'offline';
  if (asked.state === 'break') return s === 'break' && (asked.reason === null || a?.breakReason === asked.reason);
  return s !== 'offline' && s !== 'break';
}

function applyAgent(next: AgentLive | null): void {
  const cur = agent.value;
  if (next && cur && next.seq < cur.seq) return;
  agent.value = next;
  const p = pending.value;
  if (p && matches(next, p)) pending.value = null;
}

function applyCall(c: LiveCall): void {
  const mine = me.value?.agentId;
  const cur = call.value;
  if (c.agentId === mine || c.ringingAgentId === mine) {
    if (!cur || cur.callId !== c.callId || c.seq >= cur.seq) call.value = { ...c, state: c.endedAt ? 'ended' : c.state };
  } else if (cur && cur.callId === c.callId && cur.state !== 'ended') {
    // Offered to another agent, or ended: no longer this agent's live call.
    call.value = { ...cur, state: 'ended', seq: c.seq };
  }
}

async function readDesk(): Promise<DeskInfo> {
  const d = (await api<{ data: DeskInfo }>('Agent/desk')).data;
  desk.value = d;
  applyAgent(d.state);
  return d;
}

let stream: StreamHandle | null = null;

/** Reads the desk and follows the stream (the stream needs agent.live or queue.view). */
export async function startDesk(): Promise<void> {
  loadError.value = '';
  const d = await readDesk();
  stream?.close();
  stream = null;
  if (!can('agent.live') && !can('queue.view')) return;
  const url = `/api/v2/stream?ssid=${encodeURIComponent(session.value!.ssid)}&lastEventId=${d.lstSync}`;
  let first = true;
  stream = openStream(url, ['agent', 'call', 'reset'], {
    onOpen() {
      // After a reconnect the stream resumed from its last id; re-reading the snapshot costs little.
      if (!first) void readDesk().catch(() => undefined);
      first = false;
    },
    onEvent(type, data) {
      if (type === 'agent' && (data as AgentLive).agentId === d.agentId) applyAgent(data as AgentLive);
      else if (type === 'call') applyCall(data as LiveCall);
      else if (type === 'reset') void readDesk().catch(() => undefined);
    },
    onState(s) {
      conn.value = s;
    },
    async onRefused() {
      return session.value !== null;
    },
  });
}

export function stopDesk(): void {
  stream?.close();
  stream = null;
  desk.value = null;
  agent.value = null;
  call.value = null;
  pending.value = null;
  conn.value = 'none';
}

/** Asks the switch (Agent/setState); the state changes when the switch says so. */
export async function ask(state: Asked, reason: string | null): Promise<void> {
  pending.value = { state, reason, at: Date.now() };
  try {
    await api('Agent/setState', { state, ...(reason ? { reason } : {}) });
  } catch (err) {
    pending.value = null;
    throw err;
  }
}
