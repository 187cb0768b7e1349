import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { OPERATOR, type Harness } from './harness.js';

export interface Session {
  ssid: string;
  userId: string;
}

export function unique(prefix: string): string {
  return `${prefix}${randomBytes(5).toString('hex')}`;
}

export async function login(h: Harness, username: string, password: string): Promise<Session> {
  const res = await h.post('/api/v2/auth/login', { username, password });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  return { ssid: res.body.ssid as string, userId: res.body.userId as string };
}

export function loginOperator(h: Harness): Promise<Session> {
  return login(h, OPERATOR.username, OPERATOR.password);
}

/** A new tenant account, created by the operator, and a session of its client. */
export async function createTenant(h: Harness, opts: { timezone?: string } = {}): Promise<Session & { username: string; password: string; accountId: number }> {
  const op = await loginOperator(h);
  const username = unique('tenant-');
  const password = 'tenant-password';
  const res = await h.post('/api/v2/account/create', { ssid: op.ssid, username, password, name: 'Test tenant', ...opts });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  const session = await login(h, username, password);
  return { ...session, username, password, accountId: Number((res.body.data as { userId: string }).userId) };
}
