import { expect, it } from 'vitest';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, OPERATOR } from '../helpers/harness.js';
import { envelopeProblem } from './support/checks.js';
import { collectOperations } from './support/openapi.js';

/**
 * Rate limits (PRODUCT.md §4): a resolved principal over RATE_LIMIT_PER_MINUTE
 * is answered 429 with the envelope on every operation and every other
 * surface (the stream, the export, the v3 click-to-call), since all admit
 * through the same code; another principal keeps its own window; the
 * window opens again after a minute (ManualClock). Requests without
 * credentials (logins) are limited per client address.
 */

const LIMIT = 5;
const OPERATIONS = await collectOperations();

forEachDatabase(
  'rate limits',
  (use) => {
    it('once a principal is over its limit, every operation and surface answers it 429 in the envelope; another principal is not counted with it', async () => {
      const h = use();
      h.clock.advance(61_000);
      const t = await createTenant(h);
      const other = await createTenant(h);
      const tok = (await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid })).body;
      h.clock.advance(61_000);
      for (let i = 0; i < LIMIT; i++) expect((await h.post('/api/v2/account/getSettings', { ssid: t.ssid })).body.status).toBe('success');
      for (const op of OPERATIONS.filter((o) => o.auth)) {
        // A surface whose body is a file takes its credentials in the query.
        const res = await h.app.inject(
          op.credentialsIn === 'query'
            ? { method: 'POST', url: `${op.path}?ssid=${t.ssid}`, payload: '' }
            : { method: 'POST', url: op.path, payload: { ssid: t.ssid } },
        );
        expect(res.statusCode, op.id).toBe(429);
        expect(envelopeProblem(res.statusCode, res.body), op.id).toBeUndefined();
        expect(JSON.parse(res.body), op.id).toMatchObject({ status: 'error', code: 429 });
        expect(Number(res.headers['retry-after']), op.id).toBeGreaterThan(0);
      }
      const surfaces = [
        h.app.inject({ method: 'GET', url: `/api/v2/stream?ssid=${t.ssid}` }),
        h.app.inject({ method: 'GET', url: '/api/v2/CallReport/export', headers: { authorization: `Bearer ${t.ssid}` } }),
        // The same principal by its token: the limit is the principal's, not the credential's.
        h.app.inject({ method: 'POST', url: `/api/v3/clickToCall/para?user_id=${tok.userId}&token=${tok.token}&agent_number=1&customer=2` }),
      ];
      for (const res of await Promise.all(surfaces)) {
        expect(res.statusCode, res.body).toBe(429);
        expect(JSON.parse(res.body)).toMatchObject({ status: 'error', code: 429 });
      }
      expect((await h.post('/api/v2/account/getSettings', { ssid: other.ssid })).body.status).toBe('success');
      h.clock.advance(61_000);
      expect((await h.post('/api/v2/account/getSettings', { ssid: t.ssid })).body.status).toBe('success');
    });

    it('limits logins per address: the right password is refused with 429 once guesses used the window, and works a minute later', async () => {
      const h = use();
      h.clock.advance(61_000);
      for (let i = 0; i < LIMIT; i++) await h.post('/api/v2/auth/login', { username: OPERATOR.username, password: `guess-${i}` });
      const blocked = await h.post('/api/v2/auth/login', OPERATOR);
      expect(blocked.http).toBe(429);
      expect(blocked.body).toMatchObject({ status: 'error', code: 429 });
      h.clock.advance(61_000);
      expect((await h.post('/api/v2/auth/login', OPERATOR)).body.status).toBe('success');
    });
  },
  { config: { rateLimitPerMinute: LIMIT } },
);
