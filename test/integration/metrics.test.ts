import { afterAll, expect, it } from 'vitest';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { baseUrl, closeReaders, getJson, openSse } from '../helpers/sse.js';

afterAll(closeReaders);

/** The exposition text of GET /metrics. */
async function scrape(h: Harness): Promise<string> {
  const res = await h.app.inject({ method: 'GET', url: '/metrics' });
  expect(res.statusCode).toBe(200);
  return res.body;
}

/** The value of the series `name` with exactly these labels; 0 when it is not exposed (yet). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = (m[2] ?? '')
      .split(/,(?=[a-zA-Z_]\w*=")/)
      .filter(Boolean)
      .sort()
      .join(',');
    if (got === want) return Number(m[3]);
  }
  return 0;
}

/** Waits (bounded) for a condition on the metrics: a closed connection is seen by the server a moment later. */
async function until(h: Harness, ok: (text: string) => boolean): Promise<string> {
  let text = '';
  for (let i = 0; i < 150; i++) {
    text = await scrape(h);
    if (ok(text)) return text;
    await new Promise((r) => setTimeout(r, 20));
  }
  return text;
}

forEachDatabase('GET /metrics', (use) => {
  it('counts answers in the error envelope by route (the operation path) and code, also those sent with HTTP 200', async () => {
    const h = use();
    const errors = (route: string, code: number) => (text: string) => sample(text, 'callcenter_api_errors_total', { route, code: String(code) });
    const login = '/api/v2/auth/login';
    const count1014 = errors(login, 1014);
    const count1047 = errors(login, 1047);
    const requests200 = (text: string) => sample(text, 'callcenter_http_requests_total', { route: login, status: '200' });
    const before = await scrape(h);

    expect((await h.post(login, { username: 'nobody', password: 'wrong-password' })).body.code).toBe(1014);
    // Another spelling of the same operation counts under its one path: the label stays low-cardinality.
    const upper = await h.post('/api/v2/AUTH/LOGIN', { username: 'nobody', password: 'wrong-password' });
    expect([upper.http, upper.body.code]).toEqual([200, 1014]);
    expect((await h.post(login, {})).body.code).toBe(1047);
    const t = await createTenant(h);
    const invalid = await h.post('/api/v2/Agent/create', { ssid: t.ssid });
    expect(invalid.http).toBe(200);
    const missing = await h.post('/api/v2/nothing/here', { ssid: t.ssid });
    expect(missing.http).toBe(404);
    const refused = await h.app.inject({ method: 'GET', url: '/api/v2/stream?ssid=nope' });
    expect(refused.statusCode).toBe(401);

    const after = await scrape(h);
    expect(count1014(after) - count1014(before)).toBe(2);
    expect(count1047(after) - count1047(before)).toBe(1);
    expect(errors('/api/v2/Agent/create', invalid.body.code)(after) - errors('/api/v2/Agent/create', invalid.body.code)(before)).toBe(1);
    expect(errors('unmatched', 404)(after) - errors('unmatched', 404)(before)).toBe(1);
    expect(errors('/api/v2/stream', 1014)(after) - errors('/api/v2/stream', 1014)(before)).toBe(1);
    // The same answers, by HTTP status: the three login errors are among the 200s.
    expect(requests200(after) - requests200(before)).toBeGreaterThanOrEqual(3);
    expect(after).toMatch(/^# TYPE callcenter_api_errors_total counter$/m);

    // A success answer counts no error.
    await h.post(login, { username: t.username, password: t.password });
    const ok = await scrape(h);
    expect([count1014(ok), count1047(ok)]).toEqual([count1014(after), count1047(after)]);
  });

  it('counts stream connections and the streams open now; refused ones are not connections', async () => {
    const h = use();
    const base = await baseUrl(h);
    const t = await createTenant(h);
    const open = (text: string) => sample(text, 'callcenter_stream_connections_open');
    const total = (text: string) => sample(text, 'callcenter_stream_connections_total');
    const resets = (text: string) => sample(text, 'callcenter_stream_resets_total', { reason: 'future' });
    const before = await scrape(h);
    expect(before).toMatch(/^# TYPE callcenter_stream_connections_open gauge$/m);
    expect(before).toMatch(/^# TYPE callcenter_stream_connections_total counter$/m);

    const first = await openSse(`${base}/api/v2/stream?ssid=${t.ssid}`);
    const second = await openSse(`${base}/api/v2/stream`, { authorization: `Bearer ${t.ssid}`, 'last-event-id': '999' });
    await first.next((m) => m.event === 'ready');
    await second.next((m) => m.event === 'reset');
    expect((await getJson(`${base}/api/v2/stream?ssid=nope`)).status).toBe(401);
    const both = await scrape(h);
    expect(open(both) - open(before)).toBe(2);
    expect(total(both) - total(before)).toBe(2);
    expect(resets(both) - resets(before)).toBe(1);

    first.close();
    const one = await until(h, (text) => open(text) - open(before) === 1);
    expect(open(one) - open(before)).toBe(1);
    expect(total(one) - total(before)).toBe(2);
    second.close();
    expect(open(await until(h, (text) => open(text) === open(before)))).toBe(open(before));
  });

  it('follows the Prometheus naming rules: counters end in _total, nothing else does', async () => {
    const h = use();
    const text = await scrape(h);
    const types = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => ({ name: name!, type: type! }));
    expect(types.length).toBeGreaterThan(10);
    for (const { name, type } of types) {
      expect(name.endsWith('_total'), `${name} (${type})`).toBe(type === 'counter');
      expect(text, name).toMatch(new RegExp(`^# HELP ${name} \\S`, 'm'));
    }
    // prom-client's gauges that broke the rule are gone; their sums by type stay.
    for (const name of ['nodejs_active_handles', 'nodejs_active_requests', 'nodejs_active_resources']) {
      expect(types.map((m) => m.name)).not.toContain(`${name}_total`);
    }
    expect(types.map((m) => m.name)).toContain('nodejs_active_handles');
  });

  it('reports what each cache of past days holds and its budget, and a report of a past day fills its cache', async () => {
    const h = use();
    const t = await createTenant(h);
    const config = h.ctx.config;
    const before = await scrape(h);
    expect(sample(before, 'callcenter_cache_max_bytes', { cache: 'report_days' })).toBe(config.reportCacheBytes);
    expect(sample(before, 'callcenter_cache_max_bytes', { cache: 'analysis_hour_cells' })).toBe(config.analysisCacheBytes / 2);
    expect(sample(before, 'callcenter_cache_max_bytes', { cache: 'analysis_day_answers' })).toBe(config.analysisCacheBytes / 4);

    // Yesterday, a whole local day (UTC): kept by the node once asked.
    const today = Math.floor(h.clock.now() / 86_400_000) * 86_400;
    const res = await h.post('/api/v2/report/queue', { ssid: t.ssid, from: today - 86_400, to: today - 1, interval: 'hour' });
    expect(res.body.status).toBe('success');
    const after = await scrape(h);
    expect(sample(after, 'callcenter_cache_bytes', { cache: 'report_days' })).toBeGreaterThan(
      sample(before, 'callcenter_cache_bytes', { cache: 'report_days' }),
    );
  });
});
