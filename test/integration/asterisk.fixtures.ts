import { expect } from 'vitest';
import { AsteriskConnector } from '../../src/connectors/asterisk/connector.js';
import { ConnectorRuntime } from '../../src/connectors/core/index.js';
import { createAgent, createDid, createGroup } from '../helpers/admin.js';
import { amiEvent, channelFields, FakeAmi } from '../helpers/ami-server.js';
import { createTenant } from '../helpers/factories.js';
import type { Harness } from '../helpers/harness.js';
import { baseUrl } from '../helpers/sse.js';

/*
 * A tenant with queue `sales` (agents 5001, 5002, 5003 and supervisor 5009 on
 * SIP), a scripted AMI server and the Asterisk connector in process against
 * the harness app on a real port; AMI transcripts as Asterisk writes them.
 */

export async function waitFor(cond: () => boolean, what = 'condition', timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export type Row = Record<string, unknown>;

export async function startSwitch(h: Harness, opts: { members?: string[] } = {}) {
  const t = await createTenant(h);
  const g = await createGroup(h, t, { name: 'sales' });
  const did = await createDid(h, t);
  const sip = async (ext: string) => (await createAgent(h, t, { group: g, dest_type: 'SIP', dest_value: `sip:${ext}@pbx.example.com` })).agentId;
  const ids = { a1: await sip('5001'), a2: await sip('5002'), a3: await sip('5003'), sup: await sip('5009') };
  const token = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' });
  const fake = new FakeAmi();
  fake.status.members = (opts.members ?? ['5001', '5002']).map((ext) => ({ queue: 'sales', location: `PJSIP/${ext}` }));
  await fake.start();
  const lines: string[] = [];
  const rt = new ConnectorRuntime({
    conn: { api: await baseUrl(h), userId: token.body.userId, token: token.body.token },
    queueMap: new Map(),
    agentMap: new Map(),
    statusPort: null,
    switchName: 'asterisk',
    log: (l) => lines.push(l),
    batchDelayMs: 5,
    streamBackoffMs: 50,
    now: () => h.clock.now(),
  });
  const connector = new AsteriskConnector(
    rt,
    {
      host: '127.0.0.1',
      port: fake.port,
      username: 'callcenter',
      secret: 's3cret',
      didVar: null,
      takeoverContext: 'from-internal',
      originateContext: 'from-internal',
      minBackoffMs: 50,
      maxBackoffMs: 200,
    },
    () => h.clock.now(),
  );
  await connector.start();
  await waitFor(() => connector.reconciled >= 1, 'the first reconciliation');
  await rt.stream!.connected;
  /** Every event the fake has written so far is translated and ingested (a Ping answer comes after them on the socket). */
  const sync = async () => {
    await connector.ami.action([['Action', 'Ping']]);
    await connector.idle();
  };
  const stop = async () => {
    await connector.stop();
    await fake.close();
  };
  return { t, g, did, ids, fake, rt, connector, lines, sync, stop };
}

export type Switch = Awaited<ReturnType<typeof startSwitch>>;

/** The AMI events of a queue call, as app_queue writes them (Asterisk 16+ field names). */
export function caller(uid: string, num: string, did: string) {
  const chan = { channel: `PJSIP/trunk-${uid.replace('.', '')}`, uniqueid: uid, num, exten: did };
  const agentLeg = (ext: string) => ({ channel: `PJSIP/${ext}-0000${uid.replace('.', '').slice(-4)}`, uniqueid: `${uid}${ext}`, linkedid: uid, num: ext });
  const member = (ext: string) => ({ Queue: 'sales', Interface: `PJSIP/${ext}`, MemberName: `Agent ${ext}` });
  return {
    channel: chan.channel,
    agentLeg,
    join: (ts: number) => amiEvent('QueueCallerJoin', 'agent,all', ts, { ...channelFields('', chan), Queue: 'sales', Position: 1, Count: 1 }),
    called: (ts: number, ext: string) =>
      amiEvent('AgentCalled', 'agent,all', ts, { ...channelFields('', chan), ...channelFields('Dest', agentLeg(ext)), ...member(ext) }),
    noAnswer: (ts: number, ext: string, ringMs: number) =>
      amiEvent('AgentRingNoAnswer', 'agent,all', ts, { ...channelFields('', chan), ...channelFields('Dest', agentLeg(ext)), ...member(ext), RingTime: ringMs }),
    connect: (ts: number, ext: string, holdSecs: number, ringMs: number) =>
      amiEvent('AgentConnect', 'agent,all', ts, {
        ...channelFields('', chan),
        ...channelFields('Dest', agentLeg(ext)),
        ...member(ext),
        HoldTime: holdSecs,
        RingTime: ringMs,
      }),
    complete: (ts: number, ext: string, holdSecs: number, talkSecs: number) =>
      amiEvent('AgentComplete', 'agent,all', ts, {
        ...channelFields('', chan),
        ...channelFields('Dest', agentLeg(ext)),
        ...member(ext),
        HoldTime: holdSecs,
        TalkTime: talkSecs,
        Reason: 'caller',
      }),
    abandon: (ts: number, holdSecs: number) =>
      amiEvent('QueueCallerAbandon', 'agent,all', ts, { ...channelFields('', chan), Queue: 'sales', Position: 1, OriginalPosition: 1, HoldTime: holdSecs }),
    hold: (ts: number, leg: { channel: string; uniqueid: string; linkedid?: string; num: string }, on: boolean) =>
      amiEvent(on ? 'Hold' : 'Unhold', 'call,all', ts, { ...channelFields('', leg), ...(on ? { MusicClass: 'default' } : {}) }),
    hangup: (ts: number) => amiEvent('Hangup', 'call,all', ts, { ...channelFields('', chan), Cause: 16, 'Cause-txt': 'Normal Clearing' }),
    leg: chan,
  };
}

export function memberEvent(name: 'QueueMemberAdded' | 'QueueMemberRemoved' | 'QueueMemberPause', ts: number, ext: string, paused: boolean, reason = '') {
  return amiEvent(name, 'agent,all', ts, {
    Queue: 'sales',
    MemberName: `Agent ${ext}`,
    Interface: `PJSIP/${ext}`,
    StateInterface: `PJSIP/${ext}`,
    Membership: 'dynamic',
    Penalty: 0,
    CallsTaken: 0,
    LastCall: 0,
    LastPause: 0,
    LoginTime: Math.floor(ts),
    InCall: 0,
    Status: 1,
    Paused: paused ? 1 : 0,
    PausedReason: reason,
    Ringinuse: 0,
    Wrapuptime: 0,
  });
}

/** Agent/live per agent id: {state, breakReason…} of `ex`, and the whole entry. */
export async function agentLive(h: Harness, ssid: string): Promise<Map<number, Row>> {
  const res = await h.post<{ message: { pr: Row[] } }>('/api/v2/Agent/live', { ssid, A: 1 });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  return new Map(res.body.message.pr.map((e) => [Number(e.I), e]));
}

export async function queueCalls(h: Harness, ssid: string): Promise<Row[]> {
  const res = await h.post<{ data: { calls: Row[] } }>('/api/v2/queue/count', { ssid });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  return res.body.data.calls;
}

export async function hits(h: Harness, ssid: string, fields: string): Promise<Record<string, Row>> {
  const res = await h.post<{ data: Record<string, Row> }>('/api/v2/analysis/hits', { ssid, fields });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  return res.body.data;
}
