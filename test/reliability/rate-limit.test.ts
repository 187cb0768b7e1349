import { expect, it } from 'vitest';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, OPERATOR } from '../helpers/harness.js';
import { envelopeProblem } from './support/checks.js';
import { collectOperations } from './support/openapi.js';

/**
 * Rate limits (PRODUCT.md §3): every operation answers 429 with the envelope
 * once a credential is over its limit, logins are limited per client address
 * (so passwords cannot be guessed at full speed), other credentials keep
 * their own window, and the window opens again after a minute (ManualClock).
 */

const LIMIT = 5;
const OPERATIONS = await collectOperations();

forEachDatabase(
  'rate limits',
  (use) => {
    it('every operation answers 429 in the envelope once a credential is over its limit', async () => {
      const h = use();
      const t = await createTenant(h);
      h.clock.advance(61_000);
      for (const op of OPERATIONS.filter((o) => o.auth)) {
        const ssid = `limit-${op.id}`;
        let last;
        for (let i = 0; i <= LIMIT; i++) last = await h.app.inject({ method: 'POST', url: op.path, payload: { ssid } });
        expect(last!.statusCode, op.id).toBe(429);
        expect(envelopeProblem(last!.statusCode, last!.body), op.id).toBeUndefined();
        expect(JSON.parse(last!.body)).toMatchObject({ status: 'error', code: 429 });
      }
      // The tenant's own session was never counted against those windows.
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
