import { expect } from 'vitest';
import { FreeswitchConnector } from '../../src/connectors/freeswitch/connector.js';
import { createAgent, createDid, createGroup } from '../helpers/admin.js';
import { ccEvent, startFakeEsl, type FakeEslServer } from '../helpers/fake-esl.js';
import { createTenant, type Session } from '../helpers/factories.js';
import type { Harness } from '../helpers/harness.js';
import { baseUrl } from '../helpers/sse.js';

/*
 * `callcenter connect freeswitch` end to end: a scripted FreeSWITCH event
 * socket (test/helpers/fake-esl.ts, the real framing byte for byte) → the
 * connector → the service over real HTTP; then what Agent/live, queue/count
 * and analysis/hits answer, with figures worked out by hand.
 */

/** Connectors and fake sockets of the running test; `stopAll` ends them (afterEach). */
const running: { conn: FreeswitchConnector; fake: FakeEslServer }[] = [];
export async function stopAll(): Promise<void> {
  for (const { conn, fake } of running.splice(0)) {
    await conn.stop();
    await fake.close();
  }
}

export const U1 = '0f6a1c2e-8d1b-4c55-9f0e-3a2b1c4d5e61';
export const U2 = '1a2b3c4d-5e6f-4a1b-8c2d-3e4f5a6b7c82';
export const U3 = '2b3c4d5e-6f7a-4b2c-9d3e-4f5a6b7c8d93';
export const LEG = '9e8d7c6b-5a49-4837-a261-5f4e3d2c1b00';

/** Generous by default: CI runs these beside the whole suite on two cores, and some waits span a 2 s poll. */
export async function waitFor(cond: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const table = (header: string, rows: string[]) => `${[header, ...rows].join('\n')}\n+OK\n`;
export const AGENT_HEADER =
  'name|instance_id|uuid|type|contact|status|state|max_no_answer|wrap_up_time|reject_delay_time|busy_delay_time|no_answer_delay_time|last_bridge_start|last_bridge_end|last_offered_call|last_status_change|no_answer_count|calls_answered|talk_time|ready_time|external_calls_count';
export const agentRow = (ext: string, status: string, state: string) =>
  `${ext}@default|single_box||callback|[leg_timeout=10]user/${ext}@default|${status}|${state}|3|10|10|60|0|0|0|0|0|0|0|0|0|0`;
export const MEMBER_HEADER =
  'queue|instance_id|uuid|session_uuid|cid_number|cid_name|system_epoch|joined_epoch|rejoined_epoch|bridge_epoch|abandoned_epoch|base_score|skill_score|serving_agent|serving_system|state';
export const memberRow = (session: string, joined: number, state: string, agent = '') =>
  `support@default|single_box|m-${session.slice(0, 8)}|${session}|4930123456|Caller|${joined}|${joined}|0|0|0|0|0|${agent}|${agent ? 'single_box' : ''}|${state}`;

export interface Scene {
  h: Harness;
  conn: FreeswitchConnector;
  fake: FakeEslServer;
  ssid: string;
  /** The tenant's session (for the admin helpers). */
  session: Session;
  did: string;
  g: number;
  a1: number;
  a2: number;
  sup: number;
  lines: string[];
  /** Unix seconds where the scenario starts (the harness clock's time). */
  t0: number;
  /** Sends mod_callcenter events (at t0 + s), in 97-byte pieces, and waits until the service has them. */
  play(...frames: string[]): Promise<void>;
  /** Moves the harness clock to t0 + s. */
  at(s: number): void;
  post<T = Record<string, unknown>>(path: string, body?: Record<string, unknown>): Promise<T>;
}

export async function scene(h: Harness, opts: { agents?: string[]; reconcileSecs?: number; multiSwitch?: boolean } = {}): Promise<Scene> {
  const t = await createTenant(h);
  const g = await createGroup(h, t, { name: 'support' });
  const sip = (ext: string, name: string) => createAgent(h, t, { group: g, dest_type: 'SIP', dest_value: `sip:${ext}@pbx.example.com`, name });
  const [a1, a2, sup] = [await sip('5001', 'Asha'), await sip('5002', 'Ben'), await sip('5003', 'Chen')];
  const did = await createDid(h, t);
  const token = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' });
  const fake = await startFakeEsl('ClueCon');
  fake.api.set(
    'callcenter_config agent list',
    table(AGENT_HEADER, opts.agents ?? [agentRow('5001', 'Available', 'Waiting'), agentRow('5002', 'Available', 'Waiting')]),
  );
  fake.api.set('callcenter_config queue list', table('name|strategy|moh_sound', ['support@default|longest-idle-agent|local_stream://moh']));
  fake.api.set('callcenter_config queue list members support@default', table(MEMBER_HEADER, []));
  const lines: string[] = [];
  const t0 = Math.floor(h.clock.now() / 1000);
  h.clock.advance(t0 * 1000 - h.clock.now());
  const conn = new FreeswitchConnector({
    conn: { api: await baseUrl(h), userId: token.body.userId, token: token.body.token },
    queueMap: new Map(),
    agentMap: new Map(),
    statusPort: null,
    switchName: 'freeswitch',
    log: (l) => lines.push(l),
    batchDelayMs: 5,
    streamBackoffMs: 20,
    now: () => h.clock.now(),
    esl: { host: '127.0.0.1', port: fake.port },
    eslPassword: 'ClueCon',
    takeoverContext: 'default',
    originateContext: 'default',
    reconcileSecs: opts.reconcileSecs ?? 3600,
    fixReserved: true,
    multiSwitch: opts.multiSwitch ?? false,
    ctcPollMs: 20,
    eslBackoff: { initialMs: 10, maxMs: 50 },
  });
  running.push({ conn, fake });
  await conn.start();
  await conn.runtime.stream!.connected;
  await waitFor(() => conn.reconciled >= 1, 'the first reconciliation');
  const s: Scene = {
    h,
    conn,
    fake,
    ssid: t.ssid,
    session: t,
    did,
    g,
    a1: a1.agentId,
    a2: a2.agentId,
    sup: sup.agentId,
    lines,
    t0,
    async play(...frames) {
      const bytes = Buffer.from(frames.join(''));
      const before = conn.received;
      await fake.send(bytes, 97);
      await waitFor(() => conn.received >= before + frames.length, `${frames.length} events`);
      await conn.settle();
    },
    at(sec) {
      h.clock.advance((t0 + sec) * 1000 - h.clock.now());
    },
    async post(path, body = {}) {
      const res = await h.post(path, { ssid: t.ssid, ...body });
      expect(res.body.status, JSON.stringify(res.body)).toBe('success');
      return res.body as never;
    },
  };
  return s;
}

export const us = (s: Scene, sec: number) => (s.t0 + sec) * 1_000_000;
export const member = (session: string) => ({ 'CC-Queue': 'support@default', 'CC-Member-UUID': `m-${session.slice(0, 8)}`, 'CC-Member-Session-UUID': session });
export const queued = (s: Scene, sec: number, session: string) =>
  ccEvent(us(s, sec), 'member-queue-start', {
    ...member(session),
    'CC-Member-CID-Name': 'Zoë Caller',
    'CC-Member-CID-Number': '+49 30 123456',
    'Caller-Destination-Number': s.did,
    'Caller-Caller-ID-Number': '+49 30 123456',
  });
export const cc = (s: Scene, sec: number, action: string, session: string, fields: Record<string, string> = {}) =>
  ccEvent(us(s, sec), action, { ...member(session), ...fields });
export const status = (s: Scene, sec: number, ext: string, st: string) =>
  ccEvent(us(s, sec), 'agent-status-change', { 'CC-Agent': `${ext}@default`, 'CC-Agent-Status': st });

/** MM-DD-YYYY (UTC) of Unix seconds. */
function day(secs: number): string {
  const d = new Date(secs * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}-${d.getUTCFullYear()}`;
}
export async function hits(s: Scene, breakDown: string, fields: string): Promise<Record<string, Record<string, number | null>>> {
  const res = await s.h.post<{ data: Record<string, Record<string, number | null>> }>('/api/v2/analysis/hits', {
    ssid: s.ssid,
    breakDown,
    disPlay: 'total',
    fields,
    filter: [{ key: 'date', condi: 'range', val: `${day(s.t0 - 86_400)} 00:00:00,${day(s.t0 + 86_400)} 23:59:59` }],
  });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  return res.body.data;
}
export type LiveAgent = { I: string; liC: { callId?: string; onHold?: boolean }; br: { reason?: string }; ex?: { state: string } };
export async function live(s: Scene): Promise<{ pr: LiveAgent[]; lA: number; oBA: number; oCA: number }> {
  const body = await s.post<{ message: { pr: LiveAgent[]; lA: number; oBA: number; oCA: number } }>('/api/v2/Agent/live', { groupid: s.g, A: 1 });
  return body.message;
}
export const agentState = async (s: Scene, agentId: number) => (await live(s)).pr.find((p) => p.I === String(agentId))!;
export type Count = {
  data: { calls: { callId: string; state: string; agentId: number | null; onHold: boolean; did: string; caller: string }[]; grp: Record<string, number>[] };
};
export const count = (s: Scene) => s.post<Count>('/api/v2/queue/count', {});
