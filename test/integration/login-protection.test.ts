import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createTenant, unique } from '../helpers/factories.js';
import { forEachDatabase, OPERATOR, type Harness } from '../helpers/harness.js';
import { auditList } from './audit.fixtures.js';
import { loginOperator } from '../helpers/factories.js';

const ATTACKER = '203.0.113.5';
const OTHER_IP = '198.51.100.7';

async function attempt(h: Harness, username: string, password: string, ip = ATTACKER) {
  const res = await h.app.inject({ method: 'POST', url: '/api/v2/auth/login', payload: { username, password }, remoteAddress: ip });
  return { http: res.statusCode, body: res.json<{ status: string; code: number; message?: string }>(), retryAfter: res.headers['retry-after'] };
}

const defaults = loadConfig({ LOG_LEVEL: 'silent' }).login;

forEachDatabase('login protection (PRODUCT.md §4): per username', (use) => {
  it('5 failures, then 429 with Retry-After for 1 s, doubling with each further failure; a success after resets and is recorded', async () => {
    const h = use();
    const t = await createTenant(h);
    for (let i = 0; i < 5; i++) expect((await attempt(h, t.username, 'wrong')).body.code).toBe(1014);
    // Held back: even the right password, from any IP, is answered 429 without a check.
    const held = await attempt(h, t.username, t.password, OTHER_IP);
    expect(held).toMatchObject({ http: 429, body: { status: 'error', code: 429 }, retryAfter: '1' });
    expect(held.body.message).toMatch(/retry after 1 s/);
    const holds: string[] = [];
    for (const wait of [1, 2, 4, 8]) {
      h.clock.advance(wait * 1000);
      expect((await attempt(h, t.username, 'wrong')).body.code).toBe(1014);
      holds.push(String((await attempt(h, t.username, 'wrong')).retryAfter));
    }
    expect(holds).toEqual(['2', '4', '8', '16']);
    h.clock.advance(16_000);
    const ok = await attempt(h, t.username, t.password, OTHER_IP);
    expect(ok.body.status).toBe('success');
    // The count starts again: 4 more failures are plain 1014s.
    for (let i = 0; i < 4; i++) expect((await attempt(h, t.username, 'wrong')).body.code).toBe(1014);
    expect((await attempt(h, t.username, t.password)).body.status).toBe('success');
    const records = (await auditList(h, t, { operation: 'auth/lockout' })).data;
    expect(records).toHaveLength(5);
    expect(records[4]).toMatchObject({
      principal: { kind: 'anonymous', name: t.username },
      ip: ATTACKER,
      target: { type: 'account', id: String(t.accountId) },
    });
    expect(records[4]!.changes).toMatchObject({ subject: [null, 'username'], failures: [null, 5] });
    const after = (await auditList(h, t, { operation: 'auth/loginAfterFailures' })).data;
    expect(after.map((r) => [r.ip, r.changes.failures])).toEqual([
      [ATTACKER, [4, 0]],
      [OTHER_IP, [9, 0]],
    ]);
  });

  it('the hold-back stops at 15 min, and the window forgets failures older than 15 min', async () => {
    const h = use();
    const t = await createTenant(h);
    for (let i = 0; i < 4; i++) await attempt(h, t.username, 'wrong');
    h.clock.advance(901_000);
    for (let i = 0; i < 4; i++) expect((await attempt(h, t.username, 'wrong')).body.code).toBe(1014);
    await attempt(h, t.username, 'wrong');
    expect((await attempt(h, t.username, 'wrong')).http).toBe(429);
    let last = '';
    for (let i = 0; i < 14; i++) {
      h.clock.advance(900_000);
      await attempt(h, t.username, 'wrong');
      last = String((await attempt(h, t.username, 'wrong')).retryAfter);
    }
    expect(last).toBe('900');
  });

  it('keeps recent failures only, even while every login fails: older rows go with the next failure', async () => {
    const h = use();
    const subjects = async () => (await h.db.all<{ subject: string }>('SELECT subject FROM login_failures')).map((r) => r.subject);
    const names = Array.from({ length: 6 }, () => unique('nobody-'));
    const ips = names.map((_, i) => `203.0.113.${100 + i}`);
    for (const [i, name] of names.entries()) await attempt(h, name, 'wrong', ips[i]);
    // A row per username and per address.
    const mine = [...names.map((n) => `u:${n.toLowerCase()}`), ...ips.map((ip) => `ip:${ip}`)];
    expect(await subjects()).toEqual(expect.arrayContaining(mine));
    h.clock.advance((Math.max(defaults.windowSeconds, defaults.backoffMaxSeconds) + 1) * 1000);
    const last = unique('nobody-');
    await attempt(h, last, 'wrong', '203.0.113.99');
    const left = await subjects();
    expect(left).toEqual(expect.arrayContaining([`u:${last.toLowerCase()}`, 'ip:203.0.113.99']));
    expect(left.filter((s) => mine.includes(s))).toEqual([]);
  });

  it('an unknown username costs one hash and is held back like a known one; its lockout is recorded in the operator account', async () => {
    const h = use();
    const ghost = unique('nobody-');
    const before = h.ctx.auth.guard.hashing().total;
    for (let i = 0; i < 5; i++) expect((await attempt(h, ghost, 'wrong')).body.code).toBe(1014);
    expect(h.ctx.auth.guard.hashing().total - before).toBe(5);
    expect((await attempt(h, ghost, 'wrong')).http).toBe(429);
    expect(h.ctx.auth.guard.hashing().total - before).toBe(5);
    const op = await loginOperator(h);
    const rec = (await auditList(h, op, { operation: 'auth/lockout' })).data.find((r) => r.principal.name === ghost);
    expect(rec).toMatchObject({ target: { type: 'account', id: null }, changes: { subject: [null, 'username'] } });
  });
});

forEachDatabase(
  'login protection: per IP, and the hashing cap',
  (use) => {
    it("an attacker's IP is held back after LOGIN_IP_FAILURES failures over many usernames; a user on another IP is not", async () => {
      const h = use();
      const t = await createTenant(h);
      for (let i = 0; i < 8; i++) expect((await attempt(h, unique('guess-'), 'wrong')).body.code).toBe(1014);
      // The attacker's IP: held back, whatever the username.
      expect((await attempt(h, t.username, t.password, ATTACKER)).http).toBe(429);
      // The legitimate user, elsewhere: unaffected.
      expect((await attempt(h, t.username, t.password, OTHER_IP)).body.status).toBe('success');
      // A user locked out by name is held back on every IP only for the documented hold-back.
      for (let i = 0; i < 5; i++) await attempt(h, t.username, 'wrong', '192.0.2.1');
      expect((await attempt(h, t.username, t.password, OTHER_IP)).http).toBe(429);
      h.clock.advance(1000);
      expect((await attempt(h, t.username, t.password, OTHER_IP)).body.status).toBe('success');
      const op = await loginOperator(h);
      const ipLock = (await auditList(h, op, { operation: 'auth/lockout' })).data.find((r) => r.ip === ATTACKER);
      expect(ipLock?.changes.subject).toEqual([null, 'ip']);
    });

    it('logins beyond LOGIN_CONCURRENCY at once are answered 429 at once: hashes in flight never exceed the cap and memory does not grow with the burst', async () => {
      const h = use();
      const peakBefore = h.ctx.auth.guard.hashing().peak;
      expect(peakBefore).toBeLessThanOrEqual(2);
      global.gc?.();
      const rss0 = process.memoryUsage().rss;
      const burst = await Promise.all(Array.from({ length: 60 }, (_, i) => attempt(h, OPERATOR.username, OPERATOR.password, `10.0.${i}.1`)));
      const rss1 = process.memoryUsage().rss;
      const codes = burst.map((r) => r.body.code);
      expect(codes.filter((c) => c === 429).length).toBeGreaterThan(0);
      expect(codes.filter((c) => c === 200).length).toBeGreaterThan(0);
      expect(codes.every((c) => c === 200 || c === 429)).toBe(true);
      expect(burst.filter((r) => r.http === 429).every((r) => r.retryAfter === '1')).toBe(true);
      expect(h.ctx.auth.guard.hashing().peak).toBeLessThanOrEqual(2);
      expect(h.ctx.auth.guard.hashing().inFlight).toBe(0);
      // 60 hashes at once would hold 60 × 16 MiB; the cap holds 2 × 16 MiB.
      expect(rss1 - rss0).toBeLessThan(200 * 2 ** 20);
    });
  },
  { config: { login: { ...defaults, ipFailures: 8, concurrency: 2 } } },
);
