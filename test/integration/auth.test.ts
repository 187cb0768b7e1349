import { expect, it } from 'vitest';
import { createAgent, createRole } from '../helpers/admin.js';
import { createTenant, login, loginOperator } from '../helpers/factories.js';
import { forEachDatabase, OPERATOR } from '../helpers/harness.js';

forEachDatabase('authentication', (use) => {
  it('logs in with the bootstrapped operator and answers ssid, userId and expiresAt', async () => {
    const h = use();
    const res = await h.post('/api/v2/auth/login', OPERATOR);
    expect(res.body).toMatchObject({ status: 'success', code: 200, userId: expect.any(String) });
    expect(res.body.ssid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body.expiresAt).toBe(Math.floor((h.clock.now() + 43200 * 1000) / 1000));
  });

  it('refuses a wrong password or an unknown user with 1014', async () => {
    const h = use();
    for (const body of [
      { ...OPERATOR, password: 'wrong-password' },
      { username: 'nobody', password: 'whatever1' },
    ]) {
      const res = await h.post('/api/v2/auth/login', body);
      expect(res.body).toMatchObject({ status: 'error', code: 1014 });
    }
  });

  it('stores sessions and tokens only as hashes, never the passwords', async () => {
    const h = use();
    const s = await loginOperator(h);
    const sessions = await h.db.all<{ token_hash: string }>('SELECT token_hash FROM sessions');
    expect(sessions.some((r) => r.token_hash === s.ssid)).toBe(false);
    expect(sessions.every((r) => /^[0-9a-f]{64}$/.test(r.token_hash))).toBe(true);
    const t = await h.post('/api/v2/auth/token', { ssid: s.ssid });
    const tokens = await h.db.all<{ token_hash: string }>('SELECT token_hash FROM api_tokens');
    expect(tokens.some((r) => r.token_hash === t.body.token)).toBe(false);
    const accounts = await h.db.all<{ password_hash: string }>('SELECT password_hash FROM accounts');
    expect(accounts.every((r) => r.password_hash.startsWith('scrypt$') && !r.password_hash.includes(OPERATOR.password))).toBe(true);
  });

  it('accepts the userId + token form and refuses a wrong pairing with 1014', async () => {
    const h = use();
    const s = await loginOperator(h);
    const t = await h.post('/api/v2/auth/token', { ssid: s.ssid, name: 'crm' });
    expect(t.body).toMatchObject({ status: 'success', userId: s.userId });
    const ok = await h.post('/api/v2/account/getSettings', { userId: t.body.userId, token: t.body.token });
    expect(ok.body.status).toBe('success');
    const numeric = await h.post('/api/v2/account/getSettings', { userId: Number(t.body.userId), token: t.body.token });
    expect(numeric.body.status).toBe('success');
    const wrongUser = await h.post('/api/v2/account/getSettings', { userId: '999999', token: t.body.token });
    expect(wrongUser.body.code).toBe(1014);
    const wrongToken = await h.post('/api/v2/account/getSettings', { userId: t.body.userId, token: 'x'.repeat(43) });
    expect(wrongToken.body.code).toBe(1014);
  });

  it('answers 1000 for both credential forms, 1002 for a token without userId, 1014 for a bad ssid', async () => {
    const h = use();
    const s = await loginOperator(h);
    const both = await h.post('/api/v2/account/getSettings', { ssid: s.ssid, userId: s.userId, token: 'abc' });
    expect(both.body.code).toBe(1000);
    const noUser = await h.post('/api/v2/account/getSettings', { token: 'abc' });
    expect(noUser.body.code).toBe(1002);
    const bad = await h.post('/api/v2/account/getSettings', { ssid: 'not-a-session' });
    expect(bad.body.code).toBe(1014);
    const wrongType = await h.post('/api/v2/account/getSettings', { ssid: 12345 });
    expect(wrongType.body.code).toBe(1014);
    const userOnly = await h.post('/api/v2/account/getSettings', { userId: s.userId });
    expect(userOnly.body.code).toBe(1014);
  });

  it('expires a session after SESSION_TTL_SECONDS without use, and slides it on use', async () => {
    const h = use();
    const s = await loginOperator(h);
    const hour = 3600 * 1000;
    // Used after 11 hours: still valid, and the expiry moves 12 hours past this use.
    h.clock.advance(11 * hour);
    expect((await h.post('/api/v2/account/getSettings', { ssid: s.ssid })).body.status).toBe('success');
    h.clock.advance(11 * hour);
    expect((await h.post('/api/v2/account/getSettings', { ssid: s.ssid })).body.status).toBe('success');
    // Then 12 hours and a minute of silence: gone.
    h.clock.advance(12 * hour + 60_000);
    expect((await h.post('/api/v2/account/getSettings', { ssid: s.ssid })).body.code).toBe(1014);
  });

  it('logout ends the session at once', async () => {
    const h = use();
    const s = await loginOperator(h);
    expect((await h.post('/api/v2/account/getSettings', { ssid: s.ssid })).body.status).toBe('success');
    const out = await h.post('/api/v2/auth/logout', { ssid: s.ssid });
    expect(out.body).toMatchObject({ status: 'success', code: 200 });
    expect((await h.post('/api/v2/account/getSettings', { ssid: s.ssid })).body.code).toBe(1014);
  });

  it('revokeToken takes effect at once; unknown or foreign tokens answer 1012', async () => {
    const h = use();
    const a = await createTenant(h);
    const b = await createTenant(h);
    const t = (await h.post('/api/v2/auth/token', { ssid: a.ssid })).body;
    expect((await h.post('/api/v2/account/getSettings', { userId: t.userId, token: t.token })).body.status).toBe('success');
    const foreign = await h.post('/api/v2/auth/revokeToken', { ssid: b.ssid, revoke: t.token });
    expect(foreign.body.code).toBe(1012);
    const unknown = await h.post('/api/v2/auth/revokeToken', { ssid: a.ssid, revoke: 'no-such-token' });
    expect(unknown.body.code).toBe(1012);
    const ok = await h.post('/api/v2/auth/revokeToken', { ssid: a.ssid, revoke: t.token });
    expect(ok.body.status).toBe('success');
    expect((await h.post('/api/v2/account/getSettings', { userId: t.userId, token: t.token })).body.code).toBe(1014);
    const again = await h.post('/api/v2/auth/revokeToken', { ssid: a.ssid, revoke: t.token });
    expect(again.body.code).toBe(1012);
  });

  it('switch tokens may not call other operations (1015) and only clients create them', async () => {
    const h = use();
    const a = await createTenant(h);
    const sw = (await h.post('/api/v2/auth/token', { ssid: a.ssid, kind: 'switch' })).body;
    expect(sw.status).toBe('success');
    const res = await h.post('/api/v2/account/getSettings', { userId: sw.userId, token: sw.token });
    expect(res.body.code).toBe(1015);
    const tok = await h.post('/api/v2/auth/token', { userId: sw.userId, token: sw.token });
    expect(tok.body.code).toBe(1015);
  });

  it('agents create api tokens for themselves (never switch tokens) and revoke only their own', async () => {
    const h = use();
    const t = await createTenant(h);
    const role = await createRole(h, t, { permissions: ['agent.view'] });
    const [a, b] = [await createAgent(h, t, { role }), await createAgent(h, t, { role })];
    const [sa, sb] = [await login(h, a.email, a.password), await login(h, b.email, b.password)];
    const ta = (await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: sa.ssid, name: 'mine' })).body;
    expect(ta).toMatchObject({ status: 'success', userId: `agent-${a.agentId}` });
    // The token acts as the agent: exactly its role's permissions.
    const asA = { userId: ta.userId, token: ta.token };
    expect((await h.post('/api/v2/Agent/list', asA)).body.status).toBe('success');
    expect((await h.post('/api/v2/role/list', asA)).body.code).toBe(1015);
    expect((await h.post('/api/v2/account/getSettings', asA)).body.code).toBe(1015);
    expect((await h.post('/api/v2/Agent/list', { userId: t.userId, token: ta.token })).body.code).toBe(1014);
    const sw = await h.post('/api/v2/auth/token', { ssid: sa.ssid, kind: 'switch' });
    expect(sw.body.code).toBe(1015);
    // Another agent's token or the client's: 1012 as if unknown.
    const tc = (await h.post('/api/v2/auth/token', { ssid: t.ssid })).body;
    expect((await h.post('/api/v2/auth/revokeToken', { ssid: sb.ssid, revoke: ta.token })).body.code).toBe(1012);
    expect((await h.post('/api/v2/auth/revokeToken', { ssid: sa.ssid, revoke: tc.token })).body.code).toBe(1012);
    expect((await h.post('/api/v2/Agent/list', asA)).body.status).toBe('success');
    expect((await h.post('/api/v2/auth/revokeToken', { ...asA, revoke: ta.token })).body.status).toBe('success');
    expect((await h.post('/api/v2/Agent/list', asA)).body.code).toBe(1014);
    // The client may revoke any token of its account; a deleted agent's tokens stop working.
    const tb = (await h.post('/api/v2/auth/token', { ssid: sb.ssid })).body;
    const tb2 = (await h.post('/api/v2/auth/token', { ssid: sb.ssid })).body;
    expect((await h.post('/api/v2/auth/revokeToken', { ssid: t.ssid, revoke: tb.token })).body.status).toBe('success');
    expect((await h.post('/api/v2/Agent/list', { userId: tb.userId, token: tb.token })).body.code).toBe(1014);
    expect((await h.post('/api/v2/Agent/list', { userId: tb2.userId, token: tb2.token })).body.status).toBe('success');
    await h.post('/api/v2/Agent/delete', { ssid: t.ssid, agentId: b.agentId });
    expect((await h.post('/api/v2/Agent/list', { userId: tb2.userId, token: tb2.token })).body.code).toBe(1014);
  });

  it("revokeToken (PRODUCT.md §4): a client revokes any token of its account, its agents' included; an agent only its own; else 1012", async () => {
    const h = use();
    const t = await createTenant(h);
    const other = await createTenant(h);
    const op = await loginOperator(h);
    // Agents whose role holds every permission, agent.manage included.
    const [a, b] = [await createAgent(h, t), await createAgent(h, t)];
    const [sa, sb] = [await login(h, a.email, a.password), await login(h, b.email, b.password)];
    type Token = { userId: string; token: string };
    const token = async (body: Record<string, unknown>) => (await h.post<Token>('/api/v2/auth/token', body)).body;
    const works = async (tok: Token) => (await h.post('/api/v2/Agent/list', { userId: tok.userId, token: tok.token })).body.status === 'success';
    const revoke = async (by: Record<string, unknown>, tok: Token) => (await h.post('/api/v2/auth/revokeToken', { ...by, revoke: tok.token })).body;
    const ta = await token({ ssid: sa.ssid });
    const tb = await token({ ssid: sb.ssid });
    const sw = await token({ ssid: t.ssid, kind: 'switch' });
    const tc = await token({ ssid: t.ssid });
    expect(await works(ta)).toBe(true); // resolved once: the revocation must also clear the cached credential
    // An agent, even with agent.manage, revokes neither another agent's token, nor the client's, nor a switch token.
    for (const tok of [tb, tc, sw]) expect((await revoke({ ssid: sa.ssid }, tok)).code).toBe(1012);
    // Another account's client and the operator cannot revoke this account's tokens.
    for (const by of [other, op]) expect((await revoke({ ssid: by.ssid }, ta)).code).toBe(1012);
    expect(await works(ta)).toBe(true);
    // The account's client revokes its agent's token (from a session or through its own token): refused at once.
    expect(await revoke({ ssid: t.ssid }, ta)).toEqual({ status: 'success', code: 200, message: 'Token revoked' });
    expect(await works(ta)).toBe(false);
    expect(await revoke({ userId: tc.userId, token: tc.token }, tb)).toMatchObject({ status: 'success' });
    expect(await works(tb)).toBe(false);
    // ... and its switch token; the agent's session is untouched.
    expect(await revoke({ ssid: t.ssid }, sw)).toMatchObject({ status: 'success' });
    expect((await h.post('/api/v2/route/decide', { userId: sw.userId, token: sw.token, caller: '919800000001', did: '1800555' })).body.code).toBe(1014);
    expect((await h.post('/api/v2/Agent/list', { ssid: sa.ssid })).body.status).toBe('success');
  });

  it('a login name is taken once across clients and agents', async () => {
    const h = use();
    const a = await createTenant(h);
    const op = await loginOperator(h);
    const dup = await h.post('/api/v2/account/create', { ssid: op.ssid, username: a.username, password: 'another-password' });
    expect(dup.body.code).toBe(1512);
    const again = await login(h, a.username, a.password);
    expect(again.userId).toBe(a.userId);
  });
});
