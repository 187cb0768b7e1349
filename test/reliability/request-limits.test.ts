import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { countingDatabase } from '../helpers/counting-db.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';

/**
 * PRODUCT.md §4 "Request limits", on every surface alike: credentials that
 * do not resolve are counted per client IP; over AUTH_FAILURES_PER_MINUTE,
 * requests from that IP whose credentials this node has not resolved are
 * answered 429 with Retry-After without a database read, until the minute
 * has passed, while known-good credentials from it still work; a repeated
 * bad credential costs no read either. The minute is a ManualClock's.
 */

const FAILURES = 5;
let counter: ReturnType<typeof countingDatabase>;

/** A request from `ip` with a bad session id on each kind of surface (all admitted by the same code). */
const SURFACES: Array<[string, (h: Harness, ssid: string, ip: string) => Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>]> = [
  ['operation', (h, ssid, ip) => h.app.inject({ method: 'POST', url: '/api/v2/Agent/list', payload: { ssid }, remoteAddress: ip })],
  ['stream', (h, ssid, ip) => h.app.inject({ method: 'GET', url: `/api/v2/stream?ssid=${ssid}`, remoteAddress: ip })],
  [
    'export',
    (h, ssid, ip) => h.app.inject({ method: 'GET', url: '/api/v2/CallReport/export', headers: { authorization: `Bearer ${ssid}` }, remoteAddress: ip }),
  ],
  [
    'v3 click-to-call',
    (h, ssid, ip) => h.app.inject({ method: 'POST', url: `/api/v3/clickToCall/para?user_id=1&token=${ssid}&agent_number=1&customer=2`, remoteAddress: ip }),
  ],
  ['directstream', (h, ssid, ip) => h.app.inject({ method: 'GET', url: `/api/v2/recording/directstream/${ssid}/2026/11/24/c1.wav`, remoteAddress: ip })],
];

forEachDatabase(
  'request limits: failed credentials per client IP',
  (use) => {
    it('over the limit, unknown credentials from that IP get 429 with Retry-After on every surface without a read; known-good ones still work; a minute later the IP is heard again', async () => {
      const h = use();
      h.clock.advance(61_000);
      const ip = '203.0.113.7';
      const t = await createTenant(h);
      // Resolved once from the flooding IP before the flood: known-good on this node.
      expect((await h.app.inject({ method: 'POST', url: '/api/v2/account/getSettings', payload: { ssid: t.ssid }, remoteAddress: ip })).json().status).toBe(
        'success',
      );
      // Credentials this node has not resolved yet: a token (made by another node, as far as this one knows).
      const tok = (await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid })).body;
      const fresh = { userId: tok.userId, token: tok.token };
      for (let i = 0; i < FAILURES; i++) {
        const res = await h.app.inject({ method: 'POST', url: '/api/v2/Agent/list', payload: { ssid: `bad-${i}` }, remoteAddress: ip });
        expect(res.json().code).toBe(1014);
      }
      const before = counter.statements();
      for (const [name, send] of SURFACES) {
        const res = await send(h, `bad-again-${name.replace(/\W/g, '')}`, ip);
        expect(res.statusCode, name).toBe(429);
        expect(JSON.parse(res.body), name).toMatchObject({ status: 'error', code: 429 });
        const wait = Number(res.headers['retry-after']);
        expect(wait, name).toBeGreaterThan(0);
        expect(wait, name).toBeLessThanOrEqual(60);
      }
      const unresolved = await h.app.inject({ method: 'POST', url: '/api/v2/Agent/list', payload: fresh, remoteAddress: ip });
      expect(unresolved.statusCode).toBe(429);
      expect(counter.statements(), 'no statement was sent for a held-back request').toBe(before);
      // Known-good credentials from the same IP still work, even once their few cached seconds have passed.
      h.clock.advance(10_000);
      expect((await h.app.inject({ method: 'POST', url: '/api/v2/account/getSettings', payload: { ssid: t.ssid }, remoteAddress: ip })).json().status).toBe(
        'success',
      );
      // Another IP is not held back.
      expect(
        (await h.app.inject({ method: 'POST', url: '/api/v2/Agent/list', payload: { ssid: 'bad-elsewhere' }, remoteAddress: '198.51.100.1' })).json().code,
      ).toBe(1014);
      h.clock.advance(60_000);
      expect((await h.app.inject({ method: 'POST', url: '/api/v2/Agent/list', payload: fresh, remoteAddress: ip })).json().status).toBe('success');
    });

    it('a session this node issued is known-good at once: a user behind the flooding address logs in and works', async () => {
      const h = use();
      h.clock.advance(61_000);
      const ip = '203.0.113.10';
      const t = await createTenant(h);
      for (let i = 0; i < FAILURES; i++) {
        expect((await h.app.inject({ method: 'POST', url: '/api/v2/Agent/list', payload: { ssid: `flood-${i}` }, remoteAddress: ip })).json().code).toBe(1014);
      }
      expect((await h.app.inject({ method: 'POST', url: '/api/v2/Agent/list', payload: { ssid: 'flood-more' }, remoteAddress: ip })).statusCode).toBe(429);
      const signedIn = await h.app.inject({
        method: 'POST',
        url: '/api/v2/auth/login',
        payload: { username: t.username, password: t.password },
        remoteAddress: ip,
      });
      const ssid = (signedIn.json() as { ssid: string }).ssid;
      expect(typeof ssid).toBe('string');
      expect((await h.app.inject({ method: 'POST', url: '/api/v2/account/getSettings', payload: { ssid }, remoteAddress: ip })).json().status).toBe('success');
    });

    it('answers a repeated bad credential 1014 without a read, for a minute; counts it as a failure each time', async () => {
      const h = use();
      h.clock.advance(61_000);
      const ip = '203.0.113.8';
      const ask = (body: Record<string, unknown>) => h.app.inject({ method: 'POST', url: '/api/v2/Agent/list', payload: body, remoteAddress: ip });
      const first = counter.statements();
      expect((await ask({ ssid: 'never-issued' })).json().code).toBe(1014);
      expect(counter.statements()).toBeGreaterThan(first);
      const again = counter.statements();
      expect((await ask({ ssid: 'never-issued' })).json().code).toBe(1014);
      expect((await ask({ userId: '1', token: 'never-issued' })).json().code).toBe(1014);
      const afterToken = counter.statements();
      expect(afterToken).toBeGreaterThan(again); // a token is another credential: read once
      expect((await ask({ userId: '1', token: 'never-issued' })).json().code).toBe(1014);
      expect(counter.statements()).toBe(afterToken);
      // The repeats counted as failures too: this is the fifth of the minute, and the sixth is held back.
      expect((await ask({ ssid: 'never-issued' })).json().code).toBe(1014);
      expect((await ask({ ssid: 'never-issued' })).statusCode).toBe(429);
      h.clock.advance(61_000);
      const late = counter.statements();
      expect((await ask({ ssid: 'never-issued' })).json().code).toBe(1014);
      expect(counter.statements(), 'forgotten after a minute: read again').toBeGreaterThan(late);
    });

    it('a token sent with a wrong user id does not make the right pair unknown', async () => {
      const h = use();
      h.clock.advance(61_000);
      const t = await createTenant(h);
      const tok = (await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid })).body;
      const ip = '203.0.113.9';
      const ask = (body: Record<string, unknown>) => h.app.inject({ method: 'POST', url: '/api/v2/account/getSettings', payload: body, remoteAddress: ip });
      expect((await ask({ userId: 'someone-else', token: tok.token })).json().code).toBe(1014);
      expect((await ask({ userId: tok.userId, token: tok.token })).json().status).toBe('success');
    });
  },
  {
    config: { authFailuresPerMinute: FAILURES },
    wrapDb: (db) => {
      counter = countingDatabase(db);
      return counter.db;
    },
  },
);

/** A full collection (the test process is not started with --expose-gc): the heap then holds only what is kept. */
function collect(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

forEachDatabase('request limits: a flood of distinct bad credentials', (use) => {
  it('100,000 distinct bad ssids from one IP cost 100 reads and bounded memory; 11,000 IPs with one each fill no table beyond its bound', async () => {
    const h = use();
    h.clock.advance(61_000);
    const t = await createTenant(h);
    collect();
    const rssBefore = process.memoryUsage().rss;
    let held = 0;
    let refused = 0;
    let heapAtHalf = 0;
    for (let i = 0; i < 100_000; i++) {
      const res = await h.app.inject({
        method: 'POST',
        url: '/api/v2/Agent/list',
        payload: { ssid: `flood-${i}-${'x'.repeat(40)}` },
        remoteAddress: '203.0.113.50',
      });
      if (res.statusCode === 429) held++;
      else if (res.json().code === 1014) refused++;
      if (i === 49_999) {
        collect();
        heapAtHalf = process.memoryUsage().heapUsed;
      }
    }
    // Bounded: the second 50,000 kept nothing (a credential or a request remembered each would be ≥ 4 MB).
    collect();
    const keptMore = (process.memoryUsage().heapUsed - heapAtHalf) / 2 ** 20;
    expect(keptMore, `the heap kept ${keptMore.toFixed(1)} MiB more in the second 50,000`).toBeLessThan(4);
    // AUTH_FAILURES_PER_MINUTE (100) were looked up and refused; every other one was held back before a read.
    expect(refused).toBe(100);
    expect(held).toBe(99_900);
    for (let i = 0; i < 11_000; i++) {
      const ip = `2001:db8::${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}`;
      await h.app.inject({ method: 'POST', url: '/api/v2/Agent/list', payload: { ssid: `spread-${i}` }, remoteAddress: ip });
    }
    const sizes = h.ctx.admission.limits.sizes();
    expect(sizes.failures).toBeLessThanOrEqual(10_000);
    expect(h.ctx.auth.unknownCount()).toBeLessThanOrEqual(10_000);
    // RSS also holds what the collector has not given back yet (it varies with the machine's load: 104–117 MiB
    // on a loaded machine without collections, under 96 on a quiet one): a loose bound on the whole.
    collect();
    const grown = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
    expect(grown, `RSS grew ${grown.toFixed(1)} MiB`).toBeLessThan(128);
    // The tenant, whose session this node knows, was never held back.
    expect((await h.post('/api/v2/account/getSettings', { ssid: t.ssid })).body.status).toBe('success');
  }, 600_000);
});
