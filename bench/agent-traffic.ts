/**
 * The ingest benchmarks' traffic: a tenant with group 7 and `n` agents, and
 * endless valid events over them, each agent cycling through one call at a
 * time (login once, then queued → ringing → answered → ended → wrap-up start
 * → wrap-up end). Shared by bench/ingest-live.ts and the ingest-cost
 * benchmarks of the analysis and report roll-ups.
 */
import { systemClock } from '../src/clock.js';
import type { Database } from '../src/db/types.js';
import { AccountService } from '../src/modules/account/account.service.js';

/** A new account `name` with group 7 and `n` agents (not in the group: the events name it). */
export async function tenantWithAgents(db: Database, name: string, n: number): Promise<{ accountId: number; agents: number[] }> {
  const accountId = await new AccountService({ db, clock: systemClock }).create({ username: name, password: 'bench-password', name });
  await db.run('INSERT INTO groups (account_id, group_id, name, created_at) VALUES ($1, 7, $2, 0)', [accountId, 'Group 7']);
  const agents: number[] = [];
  for (let i = 0; i < n; i++) {
    const row = await db.get<{ id: number }>('INSERT INTO agents (account_id, name, email, create_date) VALUES ($1, $2, $3, 0) RETURNING id', [
      accountId,
      `Agent ${i}`,
      `${name}-${i}@example.com`,
    ]);
    agents.push(Number(row!.id));
  }
  return { accountId, agents };
}

export interface TrafficOptions {
  /** 'now': every batch at the current time; 'advancing': from 30 days ago, 0.5 s per event. */
  clock: 'now' | 'advancing';
  /** The DID of the queued calls (none when absent). */
  did?: string;
  /** The login type of agent.login (none when absent). */
  loginType?: string;
}

/** Returns a generator: `next(count)` gives the next `count` events. */
export function agentCycleTraffic(agents: number[], tag: string, opts: TrafficOptions): (count: number) => unknown[] {
  const phase = new Array<number>(agents.length).fill(-1);
  const call = new Array<string>(agents.length).fill('');
  let n = 0;
  let next = 0;
  let ts = Math.floor(Date.now() / 1000) - 30 * 86400;
  const login = opts.loginType ? { loginType: opts.loginType } : {};
  const line = opts.did ? { did: opts.did } : {};
  return (count: number): unknown[] => {
    const out: unknown[] = [];
    if (opts.clock === 'now') ts = Date.now() / 1000;
    while (out.length < count) {
      const i = next;
      next = (next + 1) % agents.length;
      const agentId = agents[i]!;
      const p = phase[i]!;
      const id = `${tag}-${n++}`;
      if (opts.clock === 'advancing') ts += 0.5;
      if (p === -1) out.push({ eventId: id, type: 'agent.login', ts, agentId, ...login });
      else if (p === 0) {
        call[i] = `${tag}-c${n}`;
        out.push({ eventId: id, type: 'call.queued', ts, callId: call[i], groupId: 7, ...line, caller: `9198${String(n % 1e8).padStart(8, '0')}` });
      } else if (p === 1) out.push({ eventId: id, type: 'call.ringing', ts, callId: call[i], agentId });
      else if (p === 2) out.push({ eventId: id, type: 'call.answered', ts, callId: call[i], agentId });
      else if (p === 3) out.push({ eventId: id, type: 'call.ended', ts, callId: call[i] });
      else if (p === 4) out.push({ eventId: id, type: 'agent.wrapup.start', ts, agentId });
      else out.push({ eventId: id, type: 'agent.wrapup.end', ts, agentId });
      phase[i] = p === 5 ? 0 : p + 1;
    }
    return out;
  };
}

/**
 * Complete calls only (the workload of bench/ingest-calls.ts): each agent logs
 * in once, then takes one call after another — queued → ringing → answered →
 * ended, every fourth call queued → ringing → missed → ended (abandoned after
 * the missed offer). Every fourth event ends a call, so every batch writes
 * call-history rows, their roll-ups and the agent-state history.
 */
export function completeCallTraffic(agents: number[], tag: string, opts: { did?: string } = {}): (count: number) => unknown[] {
  const phase = new Array<number>(agents.length).fill(-1);
  const call = new Array<string>(agents.length).fill('');
  const missed = new Array<boolean>(agents.length).fill(false);
  const line = opts.did ? { did: opts.did } : {};
  let n = 0;
  let calls = 0;
  let next = 0;
  return (count: number): unknown[] => {
    const out: unknown[] = [];
    const ts = Date.now() / 1000;
    while (out.length < count) {
      const i = next;
      next = (next + 1) % agents.length;
      const agentId = agents[i]!;
      const p = phase[i]!;
      const id = `${tag}-${n++}`;
      if (p === -1) out.push({ eventId: id, type: 'agent.login', ts, agentId, loginType: 'SIP' });
      else if (p === 0) {
        call[i] = `${tag}-c${calls}`;
        missed[i] = calls++ % 4 === 3;
        out.push({ eventId: id, type: 'call.queued', ts, callId: call[i], groupId: 7, ...line, caller: `9198${String(n % 1e8).padStart(8, '0')}` });
      } else if (p === 1) out.push({ eventId: id, type: 'call.ringing', ts, callId: call[i], agentId });
      else if (p === 2) out.push({ eventId: id, type: missed[i] ? 'call.missed' : 'call.answered', ts, callId: call[i], agentId });
      else out.push({ eventId: id, type: 'call.ended', ts, callId: call[i] });
      phase[i] = p === 3 ? 0 : p + 1;
    }
    return out;
  };
}
