import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { LiveStateService } from '../../src/modules/events/live-state.service.js';
import { registerStream } from '../../src/modules/events/stream.js';
import { createAgent, createGroup, createRole } from '../helpers/admin.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { baseUrl, closeReaders, getJson, openSse as open, type SseReader } from '../helpers/sse.js';
import { ev, ingestOk } from './events.fixtures.js';

afterAll(closeReaders);

forEachDatabase('GET /api/v2/stream', (use) => {
  it('refuses bad credentials with HTTP 401 / 1014 (the envelope an operation answers), and agents without agent.live or queue.view with 403 / 1015', async () => {
    const h = use();
    const base = await baseUrl(h);
    const cases: Array<[string, Record<string, unknown>]> = [
      ['/api/v2/stream', { x: 1 }],
      ['/api/v2/stream?ssid=nope', { ssid: 'nope' }],
      ['/api/v2/stream?userId=1&token=nope', { userId: '1', token: 'nope' }],
    ];
    for (const [path, body] of cases) {
      const res = await getJson(base + path);
      expect(res.status, path).toBe(401);
      expect(res.body.code, path).toBe(1014);
      // One admission path: the same answer as an operation given the same credentials in its body.
      expect(res.body, path).toEqual((await h.post('/api/v2/Agent/list', body)).body);
    }
    expect((await getJson(`${base}/api/v2/stream`, { authorization: 'Bearer nope' })).status).toBe(401);
    const t = await createTenant(h);
    const role = await createRole(h, t, { permissions: ['agent.view'] });
    const a = await createAgent(h, t, { role });
    const s = await login(h, a.email, a.password);
    const res = await getJson(`${base}/api/v2/stream?ssid=${s.ssid}`);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe(1015);
  });

  it('pushes agent and call changes of its own account only, with ids to resume from', async () => {
    const h = use();
    const base = await baseUrl(h);
    const t = await createTenant(h);
    const other = await createTenant(h);
    const g = await createGroup(h, t);
    const a = (await createAgent(h, t, { group: g })).agentId;
    const b = (await createAgent(h, other)).agentId;
    const r = await open(`${base}/api/v2/stream`, { authorization: `Bearer ${t.ssid}` });
    const ready = await r.next((m) => m.event === 'ready');
    expect(ready.data).toEqual({ lstSync: 0 });
    await ingestOk(h, other.ssid, [ev(h, 'agent.login', { agentId: b })]);
    await ingestOk(h, t.ssid, [ev(h, 'agent.login', { agentId: a, loginType: 'SIP' })]);
    const login1 = await r.next((m) => m.event === 'agent');
    expect(login1).toMatchObject({ id: '1', data: { agentId: a, state: 'available', loginType: 'SIP', seq: 1 } });
    await ingestOk(h, t.ssid, [ev(h, 'call.queued', { callId: 's1', groupId: g }), ev(h, 'call.ringing', { callId: 's1', agentId: a })]);
    const ringing = await r.next((m) => m.event === 'call' && m.data.state === 'ringing');
    expect(ringing.data).toMatchObject({ callId: 's1', ringingAgentId: a, groupId: g });
    await r.next((m) => m.event === 'agent' && m.data.state === 'ringing');
    await ingestOk(h, t.ssid, [ev(h, 'call.ended', { callId: 's1', reason: 'abandoned' })]);
    const ended = await r.next((m) => m.event === 'call' && m.data.state === 'ended');
    expect(ended.data).toMatchObject({ callId: 's1', outcome: 'abandoned' });
    expect(r.messages.some((m) => m.data.agentId === b)).toBe(false);
    // Resume: a new connection with Last-Event-ID 1 gets the groups after sequence 1 again.
    const again = await open(`${base}/api/v2/stream?ssid=${t.ssid}`, { 'last-event-id': '1' });
    await again.next((m) => m.event === 'call' && m.data.state === 'ended');
    expect(again.messages.filter((m) => m.id).map((m) => m.id)).toEqual(['3', '4']);
    const q = await open(`${base}/api/v2/stream?ssid=${t.ssid}&lastEventId=3`);
    await q.next((m) => m.event === 'call' && m.data.state === 'ended');
    expect(q.messages.filter((m) => m.id).map((m) => m.id)).toEqual(['4']);
  });

  it('publishes call.takeover commands and serves switch tokens', async () => {
    const h = use();
    const base = await baseUrl(h);
    const t = await createTenant(h);
    const a1 = (await createAgent(h, t)).agentId;
    const sup = (await createAgent(h, t)).agentId;
    const sw = await h.post<{ token: string; userId: string }>('/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' });
    const r = await open(`${base}/api/v2/stream?userId=${sw.body.userId}&token=${sw.body.token}`);
    await r.next((m) => m.event === 'ready');
    await ingestOk(h, t.ssid, [
      ev(h, 'agent.login', { agentId: a1 }),
      ev(h, 'agent.login', { agentId: sup }),
      ev(h, 'call.queued', { callId: 'tk', caller: '919800000055' }),
      ev(h, 'call.ringing', { callId: 'tk', agentId: a1 }),
      ev(h, 'call.answered', { callId: 'tk', agentId: a1 }),
    ]);
    await h.post('/api/v2/queue/callTakeover', { ssid: t.ssid, callId: 'tk', agentid: sup });
    const cmd = await r.next((m) => m.event === 'call.takeover');
    expect(cmd.data).toMatchObject({ callId: 'tk', from: a1, to: sup, caller: '919800000055', seq: 6 });
    expect(cmd.id).toBe('6');
  });

  describe('resuming (Last-Event-ID or ?lastEventId=)', () => {
    /** An account whose change log holds groups 1 (one event) and 3 (two events): ids 1 and 3 were sent, 2 never. */
    async function twoGroups(h: Harness) {
      const t = await createTenant(h);
      const a = (await createAgent(h, t)).agentId;
      const b = (await createAgent(h, t)).agentId;
      await ingestOk(h, t.ssid, [ev(h, 'agent.login', { agentId: a })]);
      await ingestOk(h, t.ssid, [ev(h, 'agent.login', { agentId: b }), ev(h, 'agent.break.start', { agentId: a, reason: 'Lunch' })]);
      /** The next change (group `seq`): it proves what came before it on the stream came whole. */
      const change = async (r: SseReader, seq: number) => {
        await ingestOk(h, t.ssid, [ev(h, 'agent.sip', { agentId: b, sipStatus: `s${seq}` })]);
        await r.next((m) => m.id === String(seq));
      };
      return { t, change };
    }

    const ids = (r: SseReader) => r.messages.filter((m) => m.id).map((m) => m.id);
    const events = (r: SseReader) => r.messages.map((m) => m.event);

    /** `ready`, then `reset` with its reason and the current id (so a reconnect after the reload resumes from there). */
    async function expectReset(r: SseReader, reason: string, lstSync: number) {
      const reset = await r.next((m) => m.event === 'reset');
      expect(r.messages[0]).toEqual({ event: 'ready', data: { lstSync } });
      expect(r.messages[1]).toBe(reset);
      expect(reset.id).toBe(String(lstSync));
      expect(reset.data).toEqual({ lstSync, reason, message: expect.stringContaining('Last-Event-ID') as unknown });
    }

    it('without one: starts at the current state, no reset', async () => {
      const h = use();
      const { t, change } = await twoGroups(h);
      const r = await open(`${await baseUrl(h)}/api/v2/stream?ssid=${t.ssid}`);
      expect((await r.next((m) => m.event === 'ready')).data).toEqual({ lstSync: 3 });
      await change(r, 4);
      expect(events(r)).toEqual(['ready', 'agent']);
    });

    it('with an id it sent: every group after it, no reset (header, query, the current id, 0 = from the start)', async () => {
      const h = use();
      const { t, change } = await twoGroups(h);
      const url = `${await baseUrl(h)}/api/v2/stream?ssid=${t.ssid}`;
      const fromOne = await open(url, { 'last-event-id': '1' });
      const fromStart = await open(`${url}&lastEventId=0`);
      const fromThree = await open(`${url}&lastEventId=3`);
      await change(fromOne, 4);
      await fromStart.next((m) => m.id === '4');
      await fromThree.next((m) => m.id === '4');
      expect(ids(fromOne)).toEqual(['3', '4']);
      expect(ids(fromStart)).toEqual(['1', '3', '4']);
      expect(ids(fromThree)).toEqual(['4']);
      for (const r of [fromOne, fromStart, fromThree]) expect(events(r)).not.toContain('reset');
    });

    it('with an id after the current sequence (a restored database, another server): reset "future", then changes from now', async () => {
      const h = use();
      const { t, change } = await twoGroups(h);
      const url = `${await baseUrl(h)}/api/v2/stream?ssid=${t.ssid}`;
      const r = await open(url, { 'last-event-id': '99' });
      await expectReset(r, 'future', 3);
      await change(r, 4);
      expect(ids(r)).toEqual(['3', '4']);
      expect(events(r)).toEqual(['ready', 'reset', 'agent']);
      // The client reconnects with the reset's id once it reloaded: a plain resume.
      const again = await open(url, { 'last-event-id': '3' });
      await change(again, 5);
      expect(events(again)).toEqual(['ready', 'agent', 'agent']);
    });

    it('with garbage: reset "invalid"; an empty header counts as none', async () => {
      const h = use();
      const { t, change } = await twoGroups(h);
      const url = `${await baseUrl(h)}/api/v2/stream?ssid=${t.ssid}`;
      for (const id of ['abc', '-1', '1.5', '0x1', '1 2', '3abc']) await expectReset(await open(url, { 'last-event-id': id }), 'invalid', 3);
      await expectReset(await open(`${url}&lastEventId=abc`), 'invalid', 3);
      await expectReset(await open(`${url}&lastEventId=1&lastEventId=3`), 'invalid', 3);
      // The header wins over the query, as before.
      await expectReset(await open(`${url}&lastEventId=1`, { 'last-event-id': 'x' }), 'invalid', 3);
      const empty = await open(`${url}`, { 'last-event-id': '' });
      await change(empty, 4);
      expect(events(empty)).toEqual(['ready', 'agent']);
    });

    it('with an id older than the change log keeps: reset "expired"; an id just inside it resumes', async () => {
      const h = use();
      const { t } = await twoGroups(h);
      // As if 200,000 events had been applied since: the log no longer reaches back to 1 or 3 (its
      // span is 100,000 sequence numbers), and holds the groups ending at 199,999 and 200,001.
      await h.db.run('UPDATE event_seq SET seq = $2 WHERE account_id = $1', [t.accountId, 200_001]);
      const group = JSON.stringify([['agent', { agentId: 1, state: 'available' }]]);
      for (const seq of [199_999, 200_001]) await h.db.run('INSERT INTO live_changes (account_id, seq, body) VALUES ($1, $2, $3)', [t.accountId, seq, group]);
      const url = `${await baseUrl(h)}/api/v2/stream?ssid=${t.ssid}`;
      await expectReset(await open(url, { 'last-event-id': '1' }), 'expired', 200_001);
      await expectReset(await open(url, { 'last-event-id': '3' }), 'expired', 200_001);
      const inside = await open(url, { 'last-event-id': '199999' });
      await inside.next((m) => m.id === '200001');
      expect(events(inside)).toEqual(['ready', 'agent']);
    });

    it('with an id inside the span that it never sent (from before a database restore): reset "unknown"', async () => {
      const h = use();
      const { t, change } = await twoGroups(h);
      const r = await open(`${await baseUrl(h)}/api/v2/stream?ssid=${t.ssid}`, { 'last-event-id': '2' });
      await expectReset(r, 'unknown', 3);
      await change(r, 4);
      expect(events(r)).toEqual(['ready', 'reset', 'agent']);
    });
  });

  it('sends heartbeat comments on an idle stream', async () => {
    const h = use();
    const t = await createTenant(h);
    const app = Fastify();
    registerStream(app, h.ctx, h.services.liveState, { heartbeatMs: 20 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const r = await open(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v2/stream?ssid=${t.ssid}`);
      await r.next((m) => m.event === 'ready');
      // Waiting for the transport (a 20 ms timer), not for an expiry.
      for (let i = 0; i < 100 && !r.raw().includes(': hb '); i++) await new Promise((ok) => setTimeout(ok, 20));
      expect(r.raw()).toMatch(/\n: hb \d+\n\n/);
      expect(r.raw().startsWith('retry: 2000\n\n')).toBe(true);
      r.close();
    } finally {
      await app.close();
    }
  });

  it('delivers a change committed while the subscriber was connecting (its notification came before it listened)', async () => {
    const h = use();
    const t = await createTenant(h);
    const a = (await createAgent(h, t)).agentId;
    // The change is committed and notified before the stream exists ...
    await ingestOk(h, t.ssid, [ev(h, 'agent.login', { agentId: a })]);
    // ... and the subscriber's read of the sequence ran just before that commit: it reads 0.
    let stale = true;
    const db = new Proxy(h.db, {
      get(target, prop) {
        if (prop === 'get') {
          return (sql: string, params?: unknown[]) => {
            if (stale && sql.startsWith('SELECT seq FROM event_seq')) {
              stale = false;
              return Promise.resolve({ seq: 0 });
            }
            return target.get(sql, params as never);
          };
        }
        const v = Reflect.get(target, prop) as unknown;
        return typeof v === 'function' ? (v as (...args: unknown[]) => unknown).bind(target) : v;
      },
    });
    const app = Fastify();
    registerStream(app, { ...h.ctx, db }, new LiveStateService({ db }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const r = await open(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v2/stream?ssid=${t.ssid}`);
      expect((await r.next((m) => m.event === 'ready')).data).toEqual({ lstSync: 0 });
      // No further event: the stream must still deliver sequence 1.
      const msg = await r.next((m) => m.event === 'agent');
      expect(msg).toMatchObject({ id: '1', data: { agentId: a, state: 'available' } });
      r.close();
    } finally {
      await app.close();
    }
  });

  it('forgets a client that leaves while it is being connected (the open-streams count stays exact)', async () => {
    const h = use();
    const t = await createTenant(h);
    // The first read of the sequence waits until the client has gone.
    let reading!: () => void;
    const entered = new Promise<void>((r) => (reading = r));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const db = new Proxy(h.db, {
      get(target, prop) {
        if (prop === 'get') {
          return async (sql: string, params?: unknown[]) => {
            if (sql.startsWith('SELECT seq FROM event_seq')) {
              reading();
              await gate;
            }
            return target.get(sql, params as never);
          };
        }
        const v = Reflect.get(target, prop) as unknown;
        return typeof v === 'function' ? (v as (...args: unknown[]) => unknown).bind(target) : v;
      },
    });
    const counts = { opened: 0, closed: 0 };
    const app = Fastify();
    let aborted!: () => void;
    const gone = new Promise<void>((r) => (aborted = r));
    app.addHook('onRequestAbort', (_request, done) => {
      aborted();
      done();
    });
    registerStream(app, { ...h.ctx, db }, new LiveStateService({ db }), {
      observer: { opened: () => counts.opened++, closed: () => counts.closed++, reset: () => undefined },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v2/stream?ssid=${t.ssid}`;
      const leaving = http.get(url);
      leaving.on('error', () => undefined);
      await entered;
      leaving.destroy();
      await gone;
      release();
      // A second client, connected after the first one's handler went on: only it is open.
      const staying = await open(url);
      await staying.next((m) => m.event === 'ready');
      expect(counts).toEqual({ opened: 1, closed: 0 });
      staying.close();
      // Waiting for the transport (the server sees the close a moment later), not for an expiry.
      for (let i = 0; i < 100 && counts.closed === 0; i++) await new Promise((ok) => setTimeout(ok, 20));
      expect(counts).toEqual({ opened: 1, closed: 1 });
    } finally {
      await app.close();
    }
  });

  it('delivers changes made on another node sharing the database', async () => {
    const h = use();
    if (h.dialect !== 'postgres') return; // an embedded database is served by one process
    const base = await baseUrl(h);
    const db2 = h.testDb.connect();
    const node2 = await buildApp({ config: h.ctx.config, db: db2, clock: h.clock });
    try {
      await node2.app.ready();
      const t = await createTenant(h);
      const a = (await createAgent(h, t)).agentId;
      const r = await open(`${base}/api/v2/stream?ssid=${t.ssid}`);
      await r.next((m) => m.event === 'ready');
      const res = await node2.app.inject({
        method: 'POST',
        url: '/api/v2/events/ingest',
        payload: { ssid: t.ssid, events: [ev(h, 'agent.login', { agentId: a })] },
      });
      expect(res.json().data.accepted).toBe(1);
      const msg = await r.next((m) => m.event === 'agent');
      expect(msg.data).toMatchObject({ agentId: a, state: 'available' });
    } finally {
      await node2.app.close();
      await db2.close();
    }
  });
});
