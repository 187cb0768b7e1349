import type { AuditTargetType } from '../../http/operation.js';
import type { TenantQueries } from '../../db/tenant.js';
import type { Row } from '../../db/types.js';
import { AuditTargetsRepository } from './audit-targets.repository.js';

/** A target's state: field → value, or null when it does not exist (before a create, after a delete). */
export type Snapshot = Record<string, unknown> | null;

/*
 * How the recorder sees each kind of target, before and after a change, in
 * the API's words (PRODUCT.md §12): field names and values as the
 * operation's own body and answers spell them (`ghostThresholdSecs`, a
 * role's `permissions` as an array, an agent's `role` and `group`), never
 * column names or JSON-encoded text. Secrets (`password`, `call_pass`,
 * `secret`) are read so that a change shows, and redacted by
 * audit.changes.ts.
 */

/** A BIGINT column (a string from PostgreSQL's driver) as a number; null stays null. */
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const flag = (v: unknown): boolean | null => (v === null || v === undefined ? null : Number(v) === 1);
/** A column holding JSON text, as the value it encodes. */
const json = (v: unknown, empty: unknown): unknown => (typeof v === 'string' && v !== '' ? (JSON.parse(v) as unknown) : empty);

const READERS: Record<Exclude<AuditTargetType, 'agent'>, (r: AuditTargetsRepository, id: string) => Promise<Snapshot>> = {
  group: async (r, id) => view(await r.group(Number(id)), (g) => ({ name: g.name })),
  role: async (r, id) =>
    view(await r.role(Number(id)), (x) => ({ name: x.name, permissions: json(x.permissions, []), can_see: num(x.can_see), status: num(x.status) })),
  did: async (r, id) => view(await r.did(id), (d) => ({ name: d.name })),
  contact: async (r, id) =>
    view(await r.contact(id), (c) => ({
      // contactinfo's fields, custom_* ones among them, then other's (docs/api/directory.md).
      name: c.name,
      email: c.email,
      dob: c.dob,
      address: c.address,
      company: c.company,
      designation: c.designation,
      ...(json(c.custom, {}) as Record<string, unknown>),
      lastcalltime: c.last_call,
      totalcalls: num(c.total_calls),
      source: num(c.source),
      vip: flag(c.vip),
      blacklist: flag(c.blacklist),
      obd: c.obd,
      ibd: c.ibd,
      pc: c.pc,
      ctc: c.ctc,
    })),
  account: async (r, id) =>
    view(await r.account(Number(id)), (a) => ({
      username: a.username,
      name: a.name,
      password: a.password_hash,
      timezone: a.timezone,
      defaultGroupId: num(a.default_group_id),
      ghostThresholdSecs: num(a.ghost_threshold_secs),
      customFields: json(a.custom_fields, []),
      retention: { callDays: num(a.retention_call_days), recordingDays: num(a.retention_recording_days), auditDays: num(a.retention_audit_days) },
      breakReasons: json(a.break_reasons, []),
    })),
  token: async (r, id) => view(await r.token(Number(id)), (k) => ({ kind: k.kind, name: k.name, userId: k.user_id, agentId: num(k.agent_id) })),
  webhook: async (r, id) =>
    view(await r.webhook(Number(id)), (w) => ({
      url: w.url,
      name: w.name,
      filter: json(w.filter, {}),
      secret: w.secret,
      status: w.status,
      lastError: w.last_error,
    })),
  async sticky(r, id) {
    const rows = await r.sticky(id);
    if (rows.length === 0) return null;
    // One entry per setting, named by its type and scope as Directory/setSticky takes them: `all`, `cli:<DID>`, `cli_group:<DID>:<group>`.
    const out: Record<string, unknown> = {};
    for (const s of rows) {
      out[[s.scope, s.cli, Number(s.group_id)].filter((v) => v !== '' && v !== 0).join(':')] = { agentId: Number(s.agent_id), expiry: Number(s.expiry) };
    }
    return out;
  },
  dnc: async (r, id) => view(await r.dnc(id), (d) => ({ dnc: num(d.dnc) })),
  blacklist: async (r, id) => view(await r.blacklist(id), (b) => ({ DID: typeof b.dids === 'string' && b.dids !== '' ? b.dids.split(',') : [] })),
  contactList: async (r, id) => view(await r.contactList(Number(id)), (l) => ({ name: l.name })),
  // As AddContactApi/addContact spells them: the list, the record's fields, the schedule times by their body names.
  listContact: async (r, id) =>
    view(await r.listContact(Number(id)), (c) => ({
      clId: num(c.cl_id),
      number: c.number,
      name: c.name,
      timezone: c.timezone,
      fields: json(c.fields, {}),
      campaignSchedule: num(c.schedule_at),
      campaignReschedule: num(c.reschedule_at),
      deleted: flag(c.deleted),
    })),
  // In campaign/create's words: the settings spread as the body gives them; the dialer's lease and cursor are no one's decision.
  campaign: async (r, id) =>
    view(await r.campaign(Number(id)), (c) => ({
      name: c.name,
      state: c.state,
      mode: c.mode,
      clIds: json(c.cl_ids, []),
      groupId: num(c.group_id),
      did: c.did,
      ...(json(c.settings, {}) as Record<string, unknown>),
    })),
};

function view(row: Row | undefined, toApi: (r: Row) => Record<string, unknown>): Snapshot {
  return row ? toApi(row) : null;
}

/** Agents, as Agent/create and Agent/update take them: `role` and `parent` ids, `group` the receive_call mapping, `working` the rules. */
async function agents(r: AuditTargetsRepository, all: string[]): Promise<Map<string, Snapshot>> {
  const ids = all.filter((id) => /^[0-9]{1,15}$/.test(id)).map(Number);
  const out = new Map<string, Snapshot>(all.map((id) => [id, null]));
  if (ids.length === 0) return out;
  const [rows, groups] = [await r.agents(ids), await r.agentGroups(ids)];
  for (const a of rows) {
    const group: Record<string, { receive_call: string }> = {};
    for (const g of groups) if (Number(g.agent_id) === Number(a.id)) group[String(g.group_id)] = { receive_call: g.receive_call };
    out.set(String(a.id), {
      name: a.name,
      email: a.email,
      password: a.password_hash,
      phone: a.phone,
      address: a.address,
      call_pass: a.call_pass,
      dest_type: a.dest_type,
      dest_value: a.dest_value,
      role: num(a.role_id),
      parent: num(a.parent_id),
      allowDid: a.allow_did,
      favorite: a.favorite,
      working: json(a.working, []),
      status: num(a.status),
      cad: num(a.cad),
      group,
    });
  }
  return out;
}

/** The state of each target (null where there is none), in the API's words. */
export async function readSnapshots(t: TenantQueries, type: AuditTargetType, ids: string[]): Promise<Map<string, Snapshot>> {
  if (ids.length === 0) return new Map();
  const r = new AuditTargetsRepository(t);
  if (type === 'agent') return agents(r, ids);
  const out = new Map<string, Snapshot>();
  for (const id of ids) out.set(id, await READERS[type](r, id));
  return out;
}
