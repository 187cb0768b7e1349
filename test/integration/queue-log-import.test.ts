import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it, vi } from 'vitest';
import { runQueueLogImport } from '../../src/connectors/queue-log/import-command.js';
import { createAgent, createGroup } from '../helpers/admin.js';
import { createTenant, type Session } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { runCli } from '../helpers/cli.js';
import { baseUrl, closeReaders } from '../helpers/sse.js';
import { ingestOk } from './events.fixtures.js';

afterAll(closeReaders);

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/queue_log/day.log');
/** The fixture's day, 2025-11-23 00:00 UTC. */
const D = 1763856000;
const at = (hh: number, mm: number, ss = 0) => D + hh * 3600 + mm * 60 + ss;
const C = (n: number) => `${at(9, 0) + n * 100}.${40 + n}`;

type Tenant = Session & { accountId: number };

async function setup(h: Harness) {
  const t: Tenant = await createTenant(h);
  const sales = await createGroup(h, t, { name: 'sales' });
  const ids: number[] = [];
  for (const ext of ['5001', '5002', '5003'])
    ids.push((await createAgent(h, t, { group: sales, dest_type: 'SIP', dest_value: `sip:${ext}@pbx.example.com` })).agentId);
  const sw = (await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' })).body;
  const options = { api: await baseUrl(h), 'user-id': sw.userId, token: sw.token };
  return { t, sales, a1: ids[0]!, a2: ids[1]!, a3: ids[2]!, options };
}

/** The same day as a switch would have reported it live, written by hand from the fixture. */
function sameCallsAsEvents(g: number, a1: number, a2: number, a3: number) {
  let n = 0;
  const e = (type: string, ts: number, f: Record<string, unknown> = {}) => ({ eventId: `live-${++n}`, type, ts, ...f });
  const q = (c: number, ts: number, did?: string) => e('call.queued', ts, { callId: C(c), groupId: g, caller: `91980000000${c}`, ...(did ? { did } : {}) });
  return [
    e('agent.login', at(9, 0), { agentId: a1, loginType: 'SIP' }),
    e('agent.login', at(9, 0), { agentId: a2, loginType: 'SIP' }),
    q(1, at(9, 10), '9100'),
    e('call.ringing', at(9, 10), { callId: C(1), agentId: a1 }),
    e('call.missed', at(9, 10, 15), { callId: C(1), agentId: a1 }),
    e('call.ringing', at(9, 10, 16), { callId: C(1), agentId: a2 }),
    e('call.answered', at(9, 10, 20), { callId: C(1), agentId: a2 }),
    e('call.ended', at(9, 15), { callId: C(1), reason: 'completed' }),
    q(2, at(10, 0), '9100'),
    e('call.ringing', at(10, 0, 5), { callId: C(2), agentId: a1 }),
    e('call.missed', at(10, 0, 8), { callId: C(2), agentId: a1 }),
    e('agent.login', at(10, 0, 8), { agentId: a3, loginType: 'SIP' }),
    e('call.ringing', at(10, 0, 8), { callId: C(2), agentId: a3 }),
    e('call.answered', at(10, 0, 8), { callId: C(2), agentId: a3 }),
    e('call.ended', at(10, 2, 8), { callId: C(2), reason: 'completed' }),
    e('agent.break.start', at(10, 2, 8), { agentId: a3, reason: 'lunch' }),
    e('agent.break.end', at(10, 30), { agentId: a3 }),
    q(3, at(11, 0)),
    e('call.ringing', at(11, 0, 2), { callId: C(3), agentId: a1 }),
    e('call.missed', at(11, 0, 17), { callId: C(3), agentId: a1 }),
    e('call.ended', at(11, 0, 20), { callId: C(3), reason: 'abandoned' }),
    q(4, at(11, 30)),
    e('call.ringing', at(11, 30, 5), { callId: C(4), agentId: a2 }),
    e('call.answered', at(11, 30, 5), { callId: C(4), agentId: a2 }),
    e('call.ended', at(11, 32), { callId: C(4), reason: 'completed' }),
    q(5, at(12, 0)),
    e('call.ringing', at(12, 0), { callId: C(5), agentId: a1 }),
    e('call.missed', at(12, 0, 10), { callId: C(5), agentId: a1 }),
    e('call.ended', at(12, 0, 10), { callId: C(5), reason: 'abandoned' }),
    q(6, at(13, 0)),
    e('call.ended', at(13, 1), { callId: C(6), reason: 'abandoned' }),
    q(7, at(14, 0)),
    e('call.ringing', at(14, 0), { callId: C(7), agentId: a1 }),
    e('call.answered', at(14, 0, 5), { callId: C(7), agentId: a1 }),
    e('call.ended', at(14, 3, 5), { callId: C(7), reason: 'completed' }),
    e('agent.logout', at(17, 0), { agentId: a2 }),
    e('agent.logout', at(17, 0, 1), { agentId: a1 }),
  ];
}

const FIELDS = 'TC,AC,MC,UC,CA,PM,CM,GH_UC,avgRingTime,avgHoldTime';

type Report = Record<string, unknown> & { nHDetail: Array<Record<string, unknown>> };

/** The account's call reports with its own ids (account, group, agents and their phones) replaced by names, to compare two accounts. */
async function reports(h: Harness, t: Tenant, g: number, agents: number[]) {
  const res = await h.post<{ data: Report[] }>('/api/v2/CallReport/list', { ssid: t.ssid, limit: 1000 });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  const agent = (id: unknown) => (agents.includes(Number(id)) ? `agent${agents.indexOf(Number(id)) + 1}` : id);
  const group = (id: unknown) => (id === g ? 'group' : id);
  return res.body.data.map((r): Record<string, unknown> => ({
    ...r,
    userId: 'account',
    masterAgent: agent(r.masterAgent),
    masterGroupId: group(r.masterGroupId),
    masterAgentNumber: r.masterAgentNumber === null ? null : 'phone',
    nHDetail: r.nHDetail.map((l) => ({ ...l, agentId: agent(l.agentId), groupId: group(l.groupId), number: l.number === null ? null : 'phone' })),
  }));
}

async function counters(h: Harness, t: Tenant, agents: number[]) {
  const res = await h.post('/api/v2/analysis/hits', { ssid: t.ssid, fields: FIELDS, filter: [{ key: 'date', condi: 'range', val: `${D},${D + 86_399}` }] });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  const data = res.body.data as Record<string, unknown>;
  return agents.map((a) => data[a]);
}

forEachDatabase('callcenter import queue-log', (use) => {
  it('imports every verb and quirk of the fixture; the counters equal the same calls sent as events; a re-import changes nothing', async () => {
    const h = use();
    const { t, sales, a1, a2, a3, options } = await setup(h);
    const log: string[] = [];
    const first = await runQueueLogImport(options, FIXTURE, false, { log: (l) => log.push(l), progress: false, env: {} });
    expect(log.filter((l) => l.startsWith('rejected'))).toEqual([]);
    expect(first).toMatchObject({ events: 37, duplicates: 0, rejected: 0, unknownLines: 3, damagedLines: 1, lines: 37 });
    expect(log.filter((l) => l.includes('billing'))).toHaveLength(1);
    // By hand: a1 rang c1 15 s, c2 3 s, c3 15 s, c5 10 s (all missed), answered c7 after 5 s;
    // a2 answered c1 after 4 s and c4 at once (attended transfer without CONNECT); a3, a static member, c2 at once.
    const expected = [
      { TC: 5, AC: 1, MC: 4, UC: 5, CA: 1, PM: 2, CM: 2, GH_UC: 0, avgRingTime: 9.6, avgHoldTime: 0 },
      { TC: 2, AC: 2, MC: 0, UC: 2, CA: 2, PM: 0, CM: 0, GH_UC: 0, avgRingTime: 2, avgHoldTime: 0 },
      { TC: 1, AC: 1, MC: 0, UC: 1, CA: 1, PM: 0, CM: 0, GH_UC: 0, avgRingTime: 0, avgHoldTime: 0 },
    ];
    expect(await counters(h, t, [a1, a2, a3])).toEqual(expected);
    const outcomes = await h.db.all<{ call_id: string; outcome: string; ended_at: number }>(
      'SELECT call_id, outcome, ended_at FROM calls WHERE account_id = $1 ORDER BY queued_at',
      [t.accountId],
    );
    expect(outcomes.map((r) => [r.call_id, r.outcome, Number(r.ended_at)])).toEqual([
      [C(1), 'completed', at(9, 15)],
      [C(2), 'completed', at(10, 2, 8)],
      [C(3), 'abandoned', at(11, 0, 20)],
      [C(4), 'completed', at(11, 32)],
      // No exit line: ended abandoned at its last line once the file is 4 h past it.
      [C(5), 'abandoned', at(12, 0, 10)],
      [C(6), 'abandoned', at(13, 1)],
      [C(7), 'completed', at(14, 3, 5)],
    ]);
    // The static member stays logged in; the others logged out with their last queue.
    const live = await h.db.all<{ agent_id: number; logged_in: number }>('SELECT agent_id, logged_in FROM live_agents WHERE account_id = $1', [t.accountId]);
    expect(Object.fromEntries(live.map((r) => [Number(r.agent_id), Number(r.logged_in)]))).toEqual({ [a1]: 0, [a2]: 0, [a3]: 1 });

    const again = await runQueueLogImport(options, FIXTURE, false, { log: () => undefined, progress: false, env: {} });
    expect(again).toMatchObject({ events: 0, duplicates: 37, rejected: 0, unknownLines: 3, damagedLines: 1 });
    expect(await counters(h, t, [a1, a2, a3])).toEqual(expected);

    // The same calls sent as events to another account: the same counters.
    const other = await setup(h);
    await ingestOk(h, other.t.ssid, sameCallsAsEvents(other.sales, other.a1, other.a2, other.a3));
    expect(await counters(h, other.t, [other.a1, other.a2, other.a3])).toEqual(expected);
    // ... and the same call reports, field by field (ids named): 7 calls, 4 answered.
    const imported = await reports(h, t, sales, [a1, a2, a3]);
    // callStatus by hand, newest first: c7 answered (3), c6 never offered (1), c5 and c3 offered only (2), c4, c2, c1 answered.
    expect(imported.map((r) => [r.callId, r.callStatus])).toEqual([
      [C(7), 3],
      [C(6), 1],
      [C(5), 2],
      [C(4), 3],
      [C(3), 2],
      [C(2), 3],
      [C(1), 3],
    ]);
    expect(await reports(h, other.t, other.sales, [other.a1, other.a2, other.a3])).toEqual(imported);
  });

  it('the command: the final line on stdout, the switch token from the environment, a usage error exits 2', async () => {
    const h = use();
    const { options } = await setup(h);
    const env = { CALLCENTER_API_URL: options.api, CALLCENTER_USER_ID: options['user-id'], CALLCENTER_TOKEN: options.token };
    const run = await runCli(['import', 'queue-log', FIXTURE], env);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout.trim()).toBe('imported 37 events, 0 duplicates, 3 unknown lines');
    expect(run.output).toContain('1 damaged lines skipped');
    const again = await runCli(['import', 'queue-log', FIXTURE], env);
    expect(again.stdout.trim()).toBe('imported 0 events, 37 duplicates, 3 unknown lines');
    expect((await runCli(['import', 'queue-log'], env)).code).toBe(2);
    expect((await runCli(['import', 'queue-log', '/no/such/file'], env)).code).toBe(2);
    const quiet = { log: () => undefined, progress: false, env };
    await expect(runQueueLogImport({ format: 'xml' }, FIXTURE, false, quiet)).rejects.toThrow('--format must be pipe, sql or csv');
    await expect(runQueueLogImport({ format: 'sql', timezone: 'Mars/Olympus' }, FIXTURE, false, quiet)).rejects.toThrow(
      '--timezone: unknown time zone "Mars/Olympus"',
    );
    await expect(runQueueLogImport({ format: 'csv' }, FIXTURE, true, quiet)).rejects.toThrow('a table dump (--format sql|csv) is read whole');
    // Four processes, each compiling the sources through tsx: slow on a loaded machine.
  }, 90_000);

  it('a past day imports while its agents work today: nothing refused, same counters, today untouched', async () => {
    const h = use();
    const { t, a1, a2, a3, options } = await setup(h);
    const now = Math.floor(h.clock.now() / 1000);
    await ingestOk(
      h,
      t.ssid,
      [a1, a2, a3].map((agentId) => ({ eventId: `today-${agentId}`, type: 'agent.login', agentId, loginType: 'Web', ts: now - 300 })),
    );
    const r = await runQueueLogImport(options, FIXTURE, false, { log: () => undefined, progress: false, env: {} });
    expect(r).toMatchObject({ events: 37, duplicates: 0, rejected: 0 });
    expect(await counters(h, t, [a1, a2, a3])).toEqual([
      { TC: 5, AC: 1, MC: 4, UC: 5, CA: 1, PM: 2, CM: 2, GH_UC: 0, avgRingTime: 9.6, avgHoldTime: 0 },
      { TC: 2, AC: 2, MC: 0, UC: 2, CA: 2, PM: 0, CM: 0, GH_UC: 0, avgRingTime: 2, avgHoldTime: 0 },
      { TC: 1, AC: 1, MC: 0, UC: 1, CA: 1, PM: 0, CM: 0, GH_UC: 0, avgRingTime: 0, avgHoldTime: 0 },
    ]);
    const live = await h.db.all<{ logged_in: number; login_type: string; break_reason: string | null }>(
      'SELECT logged_in, login_type, break_reason FROM live_agents WHERE account_id = $1',
      [t.accountId],
    );
    expect(live.map((r) => [Number(r.logged_in), r.login_type, r.break_reason])).toEqual([
      [1, 'Web', null],
      [1, 'Web', null],
      [1, 'Web', null],
    ]);
  });

  it('--follow: imports what is appended, waits for a partial last line, skips NONE members, ends on abort', async () => {
    const h = use();
    const { t, a1, options } = await setup(h);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'queue-log-'));
    const file = path.join(dir, 'queue_log');
    const day = fs.readFileSync(FIXTURE, 'utf8').split('\n');
    fs.writeFileSync(file, `${day.slice(0, 9).join('\n')}\n`);
    const abort = new AbortController();
    const log: string[] = [];
    let read = 0;
    const progress = (n: number) => (read = n);
    const running = runQueueLogImport(options, file, true, { log: (l) => log.push(l), progress, signal: abort.signal, env: {}, pollMs: 20 });
    const waitCalls = async (n: number) => {
      for (let i = 0; i < 300; i++) {
        const row = await h.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM calls WHERE account_id = $1', [t.accountId]);
        if (Number(row!.n) >= n) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`fewer than ${n} calls`);
    };
    await waitCalls(1);
    // A line written in two pieces, and a RINGNOANSWER of member NONE.
    const c9 = `${at(18, 0)}.99`;
    fs.appendFileSync(
      file,
      `${at(18, 0)}|${c9}|sales|NONE|ENTERQUEUE||919800000009|1\n${at(18, 0, 4)}|${c9}|sales|NONE|RINGNOANSWER|4000\n${at(18, 0, 9)}|${c9}|sa`,
    );
    // The follower has read the first piece (up to the file's end) before the second is written.
    await vi.waitFor(() => expect(read).toBe(fs.statSync(file).size), { timeout: 10_000, interval: 5 });
    fs.appendFileSync(file, `les|NONE|ABANDON|1|1|9\n`);
    await waitCalls(2);
    abort.abort();
    const r = await running;
    expect(r).toMatchObject({ rejected: 0, unknownLines: 1 });
    const row = await h.db.get<{ outcome: string; ended_at: number }>('SELECT outcome, ended_at FROM calls WHERE account_id = $1 AND call_id = $2', [
      t.accountId,
      c9,
    ]);
    expect([row!.outcome, Number(row!.ended_at)]).toEqual(['abandoned', at(18, 0, 9)]);
    // a1 is still logged in: the follow stopped before any REMOVEMEMBER.
    expect(
      Number(
        (await h.db.get<{ logged_in: number }>('SELECT logged_in FROM live_agents WHERE account_id = $1 AND agent_id = $2', [t.accountId, a1]))!.logged_in,
      ),
    ).toBe(1);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
