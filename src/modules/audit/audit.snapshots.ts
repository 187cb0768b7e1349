import type { AuditTargetType } from '../../http/operation.js';
import { inList } from '../../db/in-list.js';
import type { TenantQueries } from '../../db/tenant.js';
import type { Row } from '../../db/types.js';

/** A target's stored state: field → value, or null when it does not exist (before a create, after a delete). */
export type Snapshot = Record<string, unknown> | null;

/**
 * How the recorder reads each kind of target, before and after a change.
 * The one place that reads other modules' tables: the audit trail is a view
 * of every module's state by design, and reads it inside the change's own
 * transaction (one statement per target, by key). Field names are the
 * stored ones; `password` (a hash), `call_pass` and `secret` are redacted.
 */
const READERS: Record<Exclude<AuditTargetType, 'agent'>, (t: TenantQueries, id: string) => Promise<Snapshot>> = {
  group: (t, id) => one(t.get('SELECT name FROM groups WHERE account_id = $1 AND group_id = $2', [Number(id)])),
  role: (t, id) => one(t.get('SELECT name, permissions, can_see, status FROM roles WHERE account_id = $1 AND id = $2 AND is_deleted = 0', [Number(id)])),
  did: (t, id) => one(t.get('SELECT name FROM dids WHERE account_id = $1 AND did = $2', [id])),
  async contact(t, id) {
    const row = await t.get('SELECT * FROM contacts WHERE account_id = $1 AND contact = $2', [id]);
    if (!row) return null;
    const { account_id: _a, contact: _c, created_at: _cr, updated_at: _u, ...fields } = row;
    return fields;
  },
  async account(t, id) {
    // The operator's account/create targets another account than the caller's: looked up by its own id.
    const rows = await t.untenanted(
      "an account's own row: the target of account/create is not the caller's account",
      `SELECT username, name, password_hash AS password, timezone, default_group_id, ghost_threshold_secs, custom_fields
         FROM accounts WHERE id = $1`,
      [Number(id)],
    );
    return rows[0] ?? null;
  },
  token: (t, id) =>
    one(t.get('SELECT kind, name, user_id, agent_id, revoked_at FROM api_tokens WHERE account_id = $1 AND id = $2 AND revoked_at IS NULL', [Number(id)])),
  webhook: (t, id) => one(t.get('SELECT url, name, filter, secret, status, last_error FROM webhooks WHERE account_id = $1 AND id = $2', [Number(id)])),
  async sticky(t, id) {
    const rows = await t.all<{ scope: string; cli: string; group_id: number; agent_id: number; expiry: number }>(
      'SELECT scope, cli, group_id, agent_id, expiry FROM sticky_agents WHERE account_id = $1 AND contact = $2',
      [id],
    );
    if (rows.length === 0) return null;
    const out: Record<string, unknown> = {};
    for (const r of rows) out[[r.scope, r.cli, r.group_id].filter((v) => v !== '' && v !== 0).join(':')] = { agentId: r.agent_id, expiry: r.expiry };
    return out;
  },
  dnc: (t, id) => one(t.get('SELECT dnc FROM contact_dnc WHERE account_id = $1 AND contact = $2', [id])),
  blacklist: (t, id) => one(t.get('SELECT dids AS "DID" FROM contact_blacklist_sets WHERE account_id = $1 AND contact = $2', [id])),
};

async function one(p: Promise<Row | undefined>): Promise<Snapshot> {
  return (await p) ?? null;
}

/** Agents are read set-at-a-time: a bulk change (Agent/setCad of 500) costs two statements, not a thousand. */
async function agents(t: TenantQueries, all: string[]): Promise<Map<string, Snapshot>> {
  const ids = all.filter((id) => /^[0-9]{1,15}$/.test(id));
  const out = new Map<string, Snapshot>(all.map((id) => [id, null]));
  if (ids.length === 0) return out;
  const list = inList(t, 'id', 2, ids.map(Number));
  const rows = await t.all<Row & { id: number }>(
    `SELECT id, name, email, password_hash AS password, phone, address, call_pass, dest_type, dest_value, role_id, parent_id,
            allow_did, favorite, working, status, cad
       FROM agents WHERE account_id = $1 AND ${list.sql} AND is_deleted = 0`,
    [list.param],
  );
  const groupList = inList(t, 'agent_id', 2, ids.map(Number));
  const groups = await t.all<{ agent_id: number; group_id: number; receive_call: string }>(
    `SELECT agent_id, group_id, receive_call FROM agent_groups WHERE account_id = $1 AND ${groupList.sql} ORDER BY agent_id, group_id`,
    [groupList.param],
  );
  for (const { id, ...row } of rows) {
    const mine = groups.filter((g) => g.agent_id === id).map((g) => `${g.group_id}:${g.receive_call}`);
    out.set(String(id), { ...row, groups: mine.join(',') });
  }
  return out;
}

/** The stored state of each target (null where there is none). */
export async function readSnapshots(t: TenantQueries, type: AuditTargetType, ids: string[]): Promise<Map<string, Snapshot>> {
  if (ids.length === 0) return new Map();
  if (type === 'agent') return agents(t, ids);
  const out = new Map<string, Snapshot>();
  for (const id of ids) out.set(id, await READERS[type](t, id));
  return out;
}
