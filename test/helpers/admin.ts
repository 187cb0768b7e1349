import { randomInt } from 'node:crypto';
import { expect } from 'vitest';
import type { Harness } from './harness.js';
import { unique, type Session } from './factories.js';

/*
 * HTTP factories for the administration records (groups, DIDs, roles,
 * agents). Each creates through the API, asserts success and returns the id;
 * defaults are valid and unique, so a test only states what it cares about.
 */

let groupSeq = 1000;
let phoneSeq = 0;

async function ok<T>(h: Harness, path: string, body: Record<string, unknown>): Promise<T> {
  const res = await h.post(path, body);
  expect(res.body.status, `${path} ${JSON.stringify(res.body)}`).toBe('success');
  return res.body as T;
}

/** A unique 10-digit phone number (digits only). */
export function uniquePhone(): string {
  phoneSeq = (phoneSeq + 1) % 100_000;
  return `9${String(randomInt(0, 10_000)).padStart(4, '0')}${String(phoneSeq).padStart(5, '0')}`;
}

/** A new group; returns its id. Without groupId the service picks the next free id. */
export async function createGroup(h: Harness, session: Session, opts: { groupId?: number | string; name?: string } = {}): Promise<number> {
  const body = await ok<{ data: { groupId: number } }>(h, '/api/v2/group/create', {
    ssid: session.ssid,
    name: opts.name ?? `Group ${groupSeq++}`,
    ...(opts.groupId !== undefined ? { groupId: opts.groupId } : {}),
  });
  return body.data.groupId;
}

/** A new DID of the account (a unique 12-digit number by default); returns it as digits. */
export async function createDid(h: Harness, session: Session, did?: string): Promise<string> {
  const body = await ok<{ data: { did: string } }>(h, '/api/v2/did/create', { ssid: session.ssid, did: did ?? `80${uniquePhone()}` });
  return body.data.did;
}

/** A new role; by default every permission and can_see 1. Returns the role id. */
export async function createRole(
  h: Harness,
  session: Session,
  opts: { permissions?: string[]; can_see?: 0 | 1; name?: string; status?: 0 | 1 } = {},
): Promise<number> {
  const { PERMISSIONS } = await import('../../src/auth/permissions.js');
  const body = await ok<{ data: { roleId: number } }>(h, '/api/v2/role/create', {
    ssid: session.ssid,
    name: opts.name ?? unique('Role '),
    permissions: opts.permissions ?? [...PERMISSIONS],
    ...(opts.can_see !== undefined ? { can_see: opts.can_see } : {}),
    ...(opts.status !== undefined ? { status: opts.status } : {}),
  });
  return body.data.roleId;
}

export interface AgentOptions {
  /** Role id; default: a new role with every permission. */
  role?: number;
  /** One group id or several; each mapped with receive_call Y. */
  group?: number | number[];
  parent?: number | string;
  email?: string;
  password?: string;
  name?: string;
  status?: 0 | 1;
  /** Any further Agent/create field, sent as is. */
  [field: string]: unknown;
}

export const AGENT_PASSWORD = 'agent-password';

/**
 * A new agent with valid defaults (MOBILE destination, 8-digit call_pass,
 * unique e-mail and phone). Returns its id and its login (e-mail, password).
 */
export async function createAgent(h: Harness, session: Session, opts: AgentOptions = {}): Promise<{ agentId: number; email: string; password: string }> {
  const { role, group, parent, email, password, name, ...rest } = opts;
  const roleId = role ?? (await createRole(h, session));
  const groups = group === undefined ? [] : Array.isArray(group) ? group : [group];
  const login = email ?? `${unique('agent-')}@example.com`;
  const pass = password ?? AGENT_PASSWORD;
  const phone = uniquePhone();
  const body = await ok<{ data: { agentId: number } }>(h, '/api/v2/Agent/create', {
    ssid: session.ssid,
    name: name ?? 'Test Agent',
    email: login,
    password: pass,
    phone,
    call_pass: '12345678',
    dest_type: 'MOBILE',
    dest_value: phone,
    role: roleId,
    ...(parent !== undefined ? { parent } : {}),
    ...(groups.length > 0 ? { group: Object.fromEntries(groups.map((g) => [String(g), { receive_call: 'Y' }])) } : {}),
    ...rest,
  });
  return { agentId: body.data.agentId, email: login.toLowerCase(), password: pass };
}
