import { expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createTenant, loginOperator } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';

forEachDatabase('wire conventions', (use) => {
  it('answers 1047 for an empty body, {}, a non-object and malformed JSON', async () => {
    const h = use();
    for (const payload of ['', '{}', '[]', '[1,2]', '"text"', '42', 'null', '{bad json', '{"a":']) {
      const res = await h.post('/api/v2/account/getSettings', payload);
      expect(res.http, payload).toBe(200);
      expect(res.body, payload).toMatchObject({ status: 'error', code: 1047 });
    }
  });

  it('answers 1014 for a body with fields but no credentials', async () => {
    const res = await use().post('/api/v2/account/getSettings', { anything: 1 });
    expect(res.body).toMatchObject({ status: 'error', code: 1014 });
  });

  it('reads a body sent without a JSON content type', async () => {
    const h = use();
    const res = await h.post('/api/v2/auth/login', JSON.stringify({ username: 'x', password: 'y' }), { 'content-type': 'text/plain' });
    expect(res.body.code).toBe(1014);
  });

  it('matches module and operation paths case-insensitively', async () => {
    const h = use();
    const { ssid } = await loginOperator(h);
    for (const path of ['/api/v2/account/getSettings', '/api/v2/ACCOUNT/getsettings', '/api/v2/Account/GetSettings']) {
      const res = await h.post(path, { ssid });
      expect(res.body, path).toMatchObject({ status: 'success', code: 200 });
    }
  });

  it('answers unknown routes with 404 in the envelope', async () => {
    const h = use();
    const res = await h.post('/api/v2/Nope/nothing', { a: 1 });
    expect(res.http).toBe(404);
    expect(res.body).toMatchObject({ status: 'error', code: 404 });
    const get = await h.app.inject({ method: 'GET', url: '/nowhere' });
    expect(get.statusCode).toBe(404);
    expect(get.json().status).toBe('error');
  });

  it('refuses bodies over 1 MiB with 413 in the envelope', async () => {
    const h = use();
    const big = JSON.stringify({ ssid: 'x', pad: 'a'.repeat(1024 * 1024 + 10) });
    const res = await h.post('/api/v2/account/getSettings', big);
    expect(res.http).toBe(413);
    expect(res.body).toMatchObject({ status: 'error', code: 413, message: 'Request body too large (limit 1 MiB)' });
  });

  it('reflects the Origin with credentials and answers preflight with 204', async () => {
    const h = use();
    const pre = await h.app.inject({
      method: 'OPTIONS',
      url: '/api/v2/Agent/list',
      headers: { origin: 'https://crm.example', 'access-control-request-method': 'POST' },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('https://crm.example');
    expect(pre.headers['access-control-allow-credentials']).toBe('true');
    const res = await h.post('/api/v2/auth/login', { username: 'a', password: 'b' }, { origin: 'https://wall.example' });
    expect(res.headers['access-control-allow-origin']).toBe('https://wall.example');
    expect(res.headers['access-control-allow-credentials']).toBe('true');
  });

  it('names the field and answers 1000 for a wrong type or a missing field', async () => {
    const h = use();
    const missing = await h.post('/api/v2/auth/login', { username: 'admin' });
    expect(missing.body.code).toBe(1000);
    expect(missing.body.message).toContain('password');
    const wrong = await h.post('/api/v2/auth/login', { username: 12, password: 'x' });
    expect(wrong.body.code).toBe(1000);
    expect(wrong.body.message).toContain('username');
  });

  it('serves /healthz, /openapi.json (3.1, every operation) and /docs', async () => {
    const h = use();
    const health = await h.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/api/v2/auth/login'].post.requestBody).toBeDefined();
    expect(doc.paths['/api/v2/account/create'].post.description).toContain('1512');
    const docs = await h.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('swagger');
  });

  it('exposes Prometheus metrics by route and status', async () => {
    const h = use();
    await h.post('/api/v2/auth/login', { username: 'a', password: 'b' });
    const res = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/callcenter_http_requests_total\{route="\/api\/v2\/auth\/login",status="200"\} \d+/);
    expect(res.body).toContain('callcenter_db_pool_connections');
    expect(res.body).toMatch(/callcenter_http_request_duration_seconds_bucket\{[^}]*route="\/api\/v2\/auth\/login"[^}]*\} [1-9]/);
    expect(res.body).toMatch(/callcenter_http_request_duration_seconds_count\{route="\/api\/v2\/auth\/login"\} [1-9]/);
  });

  it('answers an unexpected failure with 500 in the envelope, never the error text', async () => {
    const h = use();
    // A second app on the same database with one route that fails the way a bug would.
    const { app } = await buildApp({ config: h.ctx.config, db: h.db, clock: h.clock });
    app.post('/boom', async () => {
      throw new Error('SELECT password_hash FROM accounts\n    at Object.<anonymous> (/srv/node_modules/x.js:1:1)');
    });
    try {
      const res = await app.inject({ method: 'POST', url: '/boom', payload: { a: 1 } });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ status: 'error', code: 500, message: 'Internal server error' });
    } finally {
      await app.close();
    }
  });

  it('never answers with a stack trace or internal text', async () => {
    const h = use();
    const weird = [
      { username: { $gt: '' }, password: 'x' },
      { username: 'a'.repeat(5000), password: 'x' },
      { username: 'x', password: null },
    ];
    for (const body of weird) {
      const res = await h.post('/api/v2/auth/login', body);
      expect(res.http).toBe(200);
      expect(JSON.stringify(res.body)).not.toMatch(/at \w+ \(|node_modules|SELECT|sqlite|postgres/i);
    }
  });
});

forEachDatabase(
  'rate limit',
  (use) => {
    it('answers 429 with the envelope once a principal exceeds its limit', async () => {
      const h = use();
      // Logins are limited per address (3 here): a new minute for each tenant's.
      h.clock.advance(61_000);
      const t = await createTenant(h);
      h.clock.advance(61_000);
      const other = await createTenant(h);
      h.clock.advance(61_000);
      let last;
      for (let i = 0; i < 4; i++) last = await h.post('/api/v2/account/getSettings', { ssid: t.ssid });
      expect(last!.http).toBe(429);
      expect(last!.body).toMatchObject({ status: 'error', code: 429 });
      // Another principal has its own window; credentials that do not resolve are not a principal's (1014).
      expect((await h.post('/api/v2/account/getSettings', { ssid: other.ssid })).body.status).toBe('success');
      expect((await h.post('/api/v2/account/getSettings', { ssid: 'another' })).body.code).toBe(1014);
    });
  },
  { config: { rateLimitPerMinute: 3 } },
);

forEachDatabase(
  'body limit from the config',
  (use) => {
    it('refuses a body over the configured limit and names that limit', async () => {
      const h = use();
      const res = await h.post('/api/v2/account/getSettings', JSON.stringify({ ssid: 'x', pad: 'a'.repeat(64 * 1024) }));
      expect(res.http).toBe(413);
      expect(res.body).toMatchObject({ status: 'error', code: 413, message: 'Request body too large (limit 64 KiB)' });
    });
  },
  { config: { bodyLimit: 64 * 1024 } },
);
