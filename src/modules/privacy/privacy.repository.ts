import { inList } from '../../db/in-list.js';
import { tenant, type TenantQueries } from '../../db/tenant.js';
import type { Queryable, Row } from '../../db/types.js';

/**
 * Every table a caller's number is kept in, read and rewritten for one
 * number. The one repository that writes other modules' tables: erasure is
 * a rewrite across all of them in one transaction, and keeping each of its
 * statements here, next to the others, is what lets a reviewer check that
 * none is missed (src/modules/privacy/README.md lists the tables).
 */
export class PrivacyRepository {
  private readonly t: TenantQueries;

  constructor(
    private readonly q: Queryable,
    accountId: number,
  ) {
    this.t = tenant(q, accountId);
  }

  /** Ids of every call of the number: finished, live or placed by click-to-call. */
  async callIds(number: string): Promise<string[]> {
    const rows = await this.t.all<{ call_id: string }>(
      `SELECT call_id FROM calls WHERE account_id = $1 AND caller = $2
       UNION SELECT call_id FROM live_calls WHERE account_id = $1 AND caller = $2
       UNION SELECT call_id FROM originated_calls WHERE account_id = $1 AND customer = $2`,
      [number],
    );
    return rows.map((r) => r.call_id);
  }

  contact(number: string) {
    return this.t.get<Row>(
      `SELECT contact, name, email, dob, address, company, designation, custom, created_at, updated_at, last_call, total_calls,
              source, vip, blacklist, obd, ibd, pc, ctc
       FROM contacts WHERE account_id = $1 AND contact = $2`,
      [number],
    );
  }

  dnc(number: string) {
    return this.t.get<{ dnc: number; updated_at: number }>('SELECT dnc, updated_at FROM contact_dnc WHERE account_id = $1 AND contact = $2', [number]);
  }

  sticky(number: string) {
    return this.t.all<{ scope: string; cli: string; group_id: number; agent_id: number; expiry: number; created_at: number }>(
      `SELECT scope, cli, group_id, agent_id, expiry, created_at FROM sticky_agents WHERE account_id = $1 AND contact = $2
       ORDER BY scope, cli, group_id`,
      [number],
    );
  }

  async blacklist(number: string): Promise<string[]> {
    const row = await this.t.get<{ dids: string }>('SELECT dids FROM contact_blacklist_sets WHERE account_id = $1 AND contact = $2', [number]);
    return row ? row.dids.split(',').filter((d) => d !== '') : [];
  }

  async removeFrom(table: 'contacts' | 'contact_dnc' | 'sticky_agents' | 'contact_blacklist_sets', number: string): Promise<number> {
    return (await this.t.run(`DELETE FROM ${table} WHERE account_id = $1 AND contact = $2`, [number])).changes;
  }

  finishedCalls(number: string) {
    return this.t.all<Row>(
      `SELECT call_id, queued_at, ended_at, group_id, did, campaign_id, direction, retry_of, answered_by, answered_at,
              talk_secs, hold_secs, wait_secs, outcome, end_reason
       FROM calls WHERE account_id = $1 AND caller = $2 ORDER BY queued_at, call_id`,
      [number],
    );
  }

  liveCalls(number: string) {
    return this.t.all<Row>(
      'SELECT call_id, state, queued_at, group_id, did, campaign_id, direction, agent_id FROM live_calls WHERE account_id = $1 AND caller = $2 ORDER BY queued_at',
      [number],
    );
  }

  originatedCalls(number: string) {
    return this.t.all<Row>(
      'SELECT call_id, agent_id, did, campaign_id, created_at FROM originated_calls WHERE account_id = $1 AND customer = $2 ORDER BY created_at',
      [number],
    );
  }
  /** The number's campaign dials: outcome, disposition and the agent's notes (no number: the caller asked by it). */
  campaignDials(number: string) {
    return this.t.all(
      `SELECT call_id, campaign_id, contact_id, agent_id, attempt, retry_of, dialled_at, connected_at, answered_by, agent_answered_at, ended_at, outcome, disposition, disposed_at, notes
       FROM campaign_calls WHERE account_id = $1 AND number = $2 ORDER BY dialled_at`,
      [number],
    );
  }

  recordings(callIds: string[]) {
    if (callIds.length === 0) return Promise.resolve([]);
    const ids = inList(this.t, 'call_id', 2, callIds);
    return this.t.all<{ call_id: string; seq: number; path: string; at: number }>(
      `SELECT call_id, seq, path, at FROM call_recordings WHERE account_id = $1 AND ${ids.sql} ORDER BY call_id, seq`,
      [ids.param],
    );
  }

  async removeRecordings(callIds: string[]): Promise<number> {
    if (callIds.length === 0) return 0;
    const ids = inList(this.t, 'call_id', 2, callIds);
    return (await this.t.run(`DELETE FROM call_recordings WHERE account_id = $1 AND ${ids.sql}`, [ids.param])).changes;
  }

  /** Whether any row (any account) still names the file: only then is it kept. */
  async pathInUse(path: string): Promise<boolean> {
    // Across tenants on purpose: a file two accounts reported is deleted only when neither holds it any more.
    return (await this.q.get('SELECT 1 AS x FROM call_recordings WHERE path = $1 LIMIT 1', [path])) !== undefined;
  }

  async pseudonymiseCalls(number: string, replacement: string): Promise<void> {
    await this.t.run('UPDATE calls SET caller = $3 WHERE account_id = $1 AND caller = $2', [number, replacement]);
    await this.t.run('UPDATE live_calls SET caller = $3 WHERE account_id = $1 AND caller = $2', [number, replacement]);
    await this.t.run('UPDATE originated_calls SET customer = $3 WHERE account_id = $1 AND customer = $2', [number, replacement]);
  }

  /**
   * Outbound campaigns: the number's contacts in every contact list are
   * removed (with their names and fields), and the campaigns' attempt state
   * forgets them (done, so never dialled again); the dials stay, with the
   * replacement as their number and without their disposition notes (free
   * text an agent wrote about the person), so a campaign's abandon rate and
   * attempt counts — figures a regulator may ask for — stay right.
   */
  async eraseFromCampaigns(number: string, replacement: string): Promise<number> {
    const removed = (await this.t.run('DELETE FROM list_contacts WHERE account_id = $1 AND number = $2', [number])).changes;
    await this.t.run('UPDATE campaign_contacts SET number = $3, done = 1, reserved_by = NULL WHERE account_id = $1 AND number = $2', [number, replacement]);
    await this.t.run('UPDATE campaign_calls SET number = $3, notes = NULL WHERE account_id = $1 AND number = $2', [number, replacement]);
    return removed;
  }

  /**
   * The number inside stored JSON and texts of the calls' webhook deliveries
   * (frozen payloads, whether sent or not, and the receivers' answers) and
   * of the live change log the stream resumes from. JSON strings are
   * replaced quoted, so a longer number that contains this one is left alone.
   */
  async pseudonymiseTexts(callIds: string[], number: string, replacement: string): Promise<void> {
    const quoted = [`"${number}"`, `"${replacement}"`];
    if (callIds.length > 0) {
      const calls = inList(this.t, 'call_id', 4, callIds);
      await this.t.run(`UPDATE webhook_deliveries SET payload = REPLACE(payload, $2, $3) WHERE account_id = $1 AND payload IS NOT NULL AND ${calls.sql}`, [
        ...quoted,
        calls.param,
      ]);
    }
    // The number is digits only (normalised), so it needs no escaping inside the LIKE pattern.
    // A receiver's answer may name the number about any call (a CRM echoing its record), so every answer is looked at.
    await this.t.run('UPDATE webhook_attempts SET response = REPLACE(response, $2, $3) WHERE account_id = $1 AND response LIKE $4', [
      ...quoted,
      `%"${number}"%`,
    ]);
    await this.t.run('UPDATE live_changes SET body = REPLACE(body, $2, $3) WHERE account_id = $1 AND body LIKE $4', [...quoted, `%"${number}"%`]);
  }
}
