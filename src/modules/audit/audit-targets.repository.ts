import { inList } from '../../db/in-list.js';
import type { TenantQueries } from '../../db/tenant.js';
import type { Row } from '../../db/types.js';

/**
 * The stored rows the audit recorder reads before and after a change: the
 * one place that reads other modules' tables (the trail is a view of every
 * module's state by design), by key, inside the change's own transaction.
 * Rows as stored; `audit.snapshots.ts` turns them into the API's words.
 */
export class AuditTargetsRepository {
  constructor(private readonly t: TenantQueries) {}

  group(id: number): Promise<Row | undefined> {
    return this.t.get('SELECT name FROM groups WHERE account_id = $1 AND group_id = $2', [id]);
  }

  role(id: number): Promise<Row | undefined> {
    return this.t.get('SELECT name, permissions, can_see, status FROM roles WHERE account_id = $1 AND id = $2 AND is_deleted = 0', [id]);
  }

  did(did: string): Promise<Row | undefined> {
    return this.t.get('SELECT name FROM dids WHERE account_id = $1 AND did = $2', [did]);
  }

  contact(contact: string): Promise<Row | undefined> {
    return this.t.get(
      `SELECT name, email, dob, address, company, designation, custom, last_call, total_calls, source, vip, blacklist, obd, ibd, pc, ctc
         FROM contacts WHERE account_id = $1 AND contact = $2`,
      [contact],
    );
  }

  async account(id: number): Promise<Row | undefined> {
    // The operator's account/create targets another account than the caller's: looked up by its own id.
    const rows = await this.t.untenanted(
      "an account's own row: the target of account/create is not the caller's account",
      `SELECT username, name, password_hash, timezone, default_group_id, ghost_threshold_secs, custom_fields,
              retention_call_days, retention_recording_days, retention_audit_days, break_reasons
         FROM accounts WHERE id = $1`,
      [id],
    );
    return rows[0];
  }

  token(id: number): Promise<Row | undefined> {
    return this.t.get('SELECT kind, name, user_id, agent_id FROM api_tokens WHERE account_id = $1 AND id = $2 AND revoked_at IS NULL', [id]);
  }

  webhook(id: number): Promise<Row | undefined> {
    return this.t.get('SELECT url, name, filter, secret, status, last_error FROM webhooks WHERE account_id = $1 AND id = $2', [id]);
  }

  sticky(contact: string): Promise<Array<{ scope: string; cli: string; group_id: number; agent_id: number; expiry: number }>> {
    return this.t.all('SELECT scope, cli, group_id, agent_id, expiry FROM sticky_agents WHERE account_id = $1 AND contact = $2', [contact]);
  }

  campaign(campaignId: number): Promise<Row | undefined> {
    return this.t.get('SELECT name, state, mode, group_id, did, cl_ids, settings FROM campaigns WHERE account_id = $1 AND campaign_id = $2', [campaignId]);
  }

  dnc(contact: string): Promise<Row | undefined> {
    return this.t.get('SELECT dnc FROM contact_dnc WHERE account_id = $1 AND contact = $2', [contact]);
  }

  blacklist(contact: string): Promise<Row | undefined> {
    return this.t.get('SELECT dids FROM contact_blacklist_sets WHERE account_id = $1 AND contact = $2', [contact]);
  }

  contactList(clId: number): Promise<Row | undefined> {
    return this.t.get('SELECT name FROM contact_lists WHERE account_id = $1 AND cl_id = $2', [clId]);
  }

  listContact(contactId: number): Promise<Row | undefined> {
    return this.t.get(
      `SELECT cl_id, number, name, timezone, fields, schedule_at, reschedule_at, deleted
         FROM list_contacts WHERE account_id = $1 AND contact_id = $2`,
      [contactId],
    );
  }

  /** Agents set-at-a-time: a bulk change (Agent/setCad of 500) costs two statements, not a thousand. */
  agents(ids: number[]): Promise<Array<Row & { id: number }>> {
    const list = inList(this.t, 'id', 2, ids);
    return this.t.all(
      `SELECT id, name, email, password_hash, phone, address, call_pass, dest_type, dest_value, role_id, parent_id,
              allow_did, favorite, working, status, cad
         FROM agents WHERE account_id = $1 AND ${list.sql} AND is_deleted = 0`,
      [list.param],
    );
  }

  agentGroups(ids: number[]): Promise<Array<{ agent_id: number; group_id: number; receive_call: string }>> {
    const list = inList(this.t, 'agent_id', 2, ids);
    return this.t.all(`SELECT agent_id, group_id, receive_call FROM agent_groups WHERE account_id = $1 AND ${list.sql} ORDER BY agent_id, group_id`, [
      list.param,
    ]);
  }

  /** The name a principal is recorded under: an agent's name. */
  agentName(agentId: number): Promise<{ name: string } | undefined> {
    return this.t.get('SELECT name FROM agents WHERE account_id = $1 AND id = $2', [agentId]);
  }

  /** The name a client is recorded under: its account's name or username. */
  async accountName(accountId: number): Promise<{ name: string; username: string } | undefined> {
    const rows = await this.t.untenanted<{ name: string; username: string }>(
      "the caller's own account row",
      'SELECT name, username FROM accounts WHERE id = $1',
      [accountId],
    );
    return rows[0];
  }

  /** The operator account, which owns what no tenant does (a lockout of an unknown username or an IP). */
  async operatorAccount(): Promise<number | undefined> {
    const rows = await this.t.untenanted<{ id: number }>(
      'the operator account, which owns what no tenant does',
      'SELECT id FROM accounts WHERE is_operator = 1 ORDER BY id LIMIT 1',
    );
    return rows[0] === undefined ? undefined : Number(rows[0].id);
  }
}
