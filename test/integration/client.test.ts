import type { AddressInfo } from 'node:net';
import { beforeAll, expect, expectTypeOf, it } from 'vitest';
import {
  ApiError,
  createClient,
  type AgentQuickRecord,
  type AgentRecord,
  type CallCenterClient,
  type HitCounters,
  type OperationPath,
  type RequestBody,
} from '../../client/index.js';
import { createAgent } from '../helpers/admin.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, OPERATOR } from '../helpers/harness.js';

/** The typed client (client/index.ts) against the real server, listening on a port. */
forEachDatabase('typed client', (use) => {
  let baseUrl: string;
  let tenant: Awaited<ReturnType<typeof createTenant>>;

  beforeAll(async () => {
    const h = use();
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    tenant = await createTenant(h);
  });

  const client = (): CallCenterClient => createClient({ baseUrl });

  it('logs in, keeps the ssid and answers typed success bodies', async () => {
    const c = client();
    const login = await c.login(tenant.username, tenant.password);
    expect(login.status).toBe('success');
    expect(login.userId).toBe(tenant.userId);
    expect(c.credentials).toEqual({ ssid: login.ssid });
    const settings = await c.call('account/getSettings', {});
    expect(settings.code).toBe(200);
    expect(settings.data.timezone).toBe('UTC');
  });

  it('throws an ApiError carrying the code for an error envelope (wrong password: 1014 on HTTP 200)', async () => {
    const err = await client()
      .login(tenant.username, 'wrong-password')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(1014);
    expect((err as ApiError).httpStatus).toBe(200);
    expect((err as ApiError).operation).toBe('auth/login');
  });

  it('injects userId + token into every body (token form)', async () => {
    const c = client();
    await c.login(tenant.username, tenant.password);
    const made = await c.call('auth/token', { name: 'client-test', kind: 'api' });
    const tokenClient = createClient({ baseUrl, credentials: { userId: made.userId, token: made.token } });
    const settings = await tokenClient.call('account/getSettings', {});
    expect(settings.status).toBe('success');
    // A revoked token is refused with 1014 at once.
    await c.call('auth/revokeToken', { revoke: made.token });
    await expect(tokenClient.call('account/getSettings', {})).rejects.toMatchObject({ code: 1014 });
  });

  it('never sends credential fields given in the body: its own credentials win (no 1000 for two forms)', async () => {
    const c = client();
    await c.login(tenant.username, tenant.password);
    const body = { ssid: 'forged', userId: '1', token: 'x' } as unknown as RequestBody<'account/getSettings'>;
    const settings = await c.call('account/getSettings', body);
    expect(settings.status).toBe('success');
  });

  it('surfaces a permission error as 1015 (a tenant is not the operator)', async () => {
    const c = client();
    await c.login(tenant.username, tenant.password);
    await expect(c.call('account/create', { username: 'x-tenant', password: 'x-password-1', name: 'X' })).rejects.toMatchObject({ code: 1015 });
  });

  it('refuses to call an authenticated operation without credentials, before any request', async () => {
    let requests = 0;
    const counting: typeof fetch = (...args) => {
      requests++;
      return fetch(...args);
    };
    const c = createClient({ baseUrl, fetch: counting });
    await expect(c.call('account/getSettings', {})).rejects.toMatchObject({ code: 1014 });
    expect(requests).toBe(0);
  });

  it('logs out: the session ends on the server and the client forgets it', async () => {
    const c = client();
    const { ssid } = await c.login(tenant.username, tenant.password);
    await c.logout();
    expect(c.credentials).toBeNull();
    const stale = createClient({ baseUrl, credentials: { ssid } });
    await expect(stale.call('account/getSettings', {})).rejects.toMatchObject({ code: 1014, httpStatus: 200 });
  });

  it('maps an answer that is not an application error (unknown route: HTTP 404) to ApiError with that status', async () => {
    const c = createClient({ baseUrl, credentials: { ssid: 'x' } });
    const err = await c.call('nope/missing' as OperationPath, {} as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).httpStatus).toBe(404);
    expect((err as ApiError).code).toBe(404);
  });

  it('works with operations that the operator calls (account/create) and returns their typed data', async () => {
    const c = client();
    await c.login(OPERATOR.username, OPERATOR.password);
    const username = `client-made-${Date.now()}`;
    const made = await c.call('account/create', { username, password: 'made-password-1', name: 'Made by client' });
    expect(made.data.userId).toMatch(/^\d+$/);
    const fresh = client();
    await expect(fresh.login(username, 'made-password-1')).resolves.toMatchObject({ status: 'success' });
  });

  it('reads the event stream at streamUrl(): ready first, then the change an ingest made', async () => {
    const c = client();
    await c.login(tenant.username, tenant.password);
    const abort = new AbortController();
    const res = await fetch(c.streamUrl(), { signal: abort.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const until = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${needle}: ${text}`);
        text += value;
      }
    };
    try {
      await until('event: ready');
      const ingest = await c.call('events/ingest', {
        events: [{ eventId: 'client-stream-1', type: 'call.queued', ts: 1_700_000_000, callId: 'client-call-1', caller: '919800011122' }],
      });
      expect(ingest.data).toMatchObject({ accepted: 1, duplicates: 0, errors: [] });
      await until('client-call-1');
      expect(text).toMatch(/event: call\ndata: \{[^\n]*"callId":"client-call-1"[^\n]*"state":"queued"/);
    } finally {
      abort.abort();
      await reader.cancel().catch(() => undefined);
    }
  });

  it('is refused the stream without valid credentials: HTTP 401 with the 1014 envelope', async () => {
    const c = createClient({ baseUrl, credentials: { ssid: 'not-a-session' } });
    const res = await fetch(c.streamUrl());
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ status: 'error', code: 1014 });
  });

  it('builds the stream URL with the credentials of either form', () => {
    const c = createClient({ baseUrl, credentials: { ssid: 'abc' } });
    expect(c.streamUrl()).toBe(`${baseUrl}/api/v2/stream?ssid=abc`);
    c.setCredentials({ userId: 7, token: 't k' });
    expect(c.streamUrl(41)).toBe(`${baseUrl}/api/v2/stream?userId=7&token=t+k&lastEventId=41`);
  });

  it('narrows answers by the request: Agent/list full or quick records, analysis/hits counters flat or by bucket', async () => {
    const c = client();
    await c.login(tenant.username, tenant.password);
    const made = { data: await createAgent(use(), tenant, { name: 'Typed Agent' }) };
    const full = await c.call('Agent/list', { agentId: made.data.agentId });
    expectTypeOf(full.response).toEqualTypeOf<AgentRecord[]>();
    expect(full.response[0]!.name).toBe('Typed Agent');
    const quick = await c.call('Agent/list', { agentId: made.data.agentId, quick: true });
    expectTypeOf(quick.response).toEqualTypeOf<AgentQuickRecord[]>();
    expect(quick.response[0]!.nm).toBe('Typed Agent');
    const either = await c.call('Agent/list', { quick: Math.random() > 2 });
    expectTypeOf(either.response).toEqualTypeOf<Array<AgentRecord | AgentQuickRecord>>();

    // analysis/hits: only the types (no calls in this tenant to count).
    const range = { key: 'date', condi: 'range', val: '01-10-2026 00:00:00,01-10-2026 23:59:59' };
    const _flat = () => c.call('analysis/hits', { filter: [range], fields: ['TC'] });
    const _byBucket = () => c.call('analysis/hits', { filter: [range], multi: true });
    type Data<F extends () => Promise<{ data: unknown }>> = Awaited<ReturnType<F>>['data'];
    expectTypeOf<Data<typeof _flat>[string]>().toEqualTypeOf<HitCounters>();
    // Both ways assignable (toEqualTypeOf trips over the nested index signatures).
    expectTypeOf<Data<typeof _byBucket>[string][string]>().toExtend<HitCounters>();
    expectTypeOf<HitCounters>().toExtend<Data<typeof _byBucket>[string][string]>();
    expectTypeOf<Data<typeof _byBucket>[string]>().not.toEqualTypeOf<HitCounters>();
    expectTypeOf<HitCounters['TC']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<HitCounters['avgRingTime']>().toEqualTypeOf<number | null | undefined>();
  });
});
