import { inList } from '../../db/in-list.js';
import type { Queryable } from '../../db/types.js';
import { tenant, type TenantQueries } from '../../db/tenant.js';

/** The per-DID blacklist: one row per contact with the set of DIDs its calls are blocked on. */
export class BlacklistRepository {
  private readonly t: TenantQueries;
  constructor(db: Queryable, accountId: number) {
    this.t = tenant(db, accountId);
  }

  /** Replaces the contact's DID set in one statement (empty: the contact leaves the blacklist). */
  async replace(contact: string, dids: string[]): Promise<void> {
    if (dids.length === 0) {
      await this.t.run('DELETE FROM contact_blacklist_sets WHERE account_id = $1 AND contact = $2', [contact]);
      return;
    }
    await this.t.run(
      `INSERT INTO contact_blacklist_sets (account_id, contact, dids) VALUES ($1, $2, $3)
       ON CONFLICT (account_id, contact) DO UPDATE SET dids = excluded.dids`,
      [contact, dids.join(',')],
    );
  }

  /** Clears the whole account's blacklist; returns how many contacts were on it (one row each). */
  async reset(): Promise<number> {
    return (await this.t.run('DELETE FROM contact_blacklist_sets WHERE account_id = $1')).changes;
  }

  async dids(contact: string): Promise<string[]> {
    const row = await this.t.get<{ dids: string }>('SELECT dids FROM contact_blacklist_sets WHERE account_id = $1 AND contact = $2', [contact]);
    return row ? row.dids.split(',') : [];
  }

  async blocks(contact: string, did: string): Promise<boolean> {
    return (await this.dids(contact)).includes(did);
  }

  /** Of `contacts`, those blacklisted for `did`: one statement. */
  async blockedAmong(contacts: readonly string[], did: string): Promise<Set<string>> {
    if (contacts.length === 0) return new Set();
    const { sql, param } = inList(this.t, 'contact', 2, [...new Set(contacts)]);
    const rows = await this.t.all<{ contact: string; dids: string }>(`SELECT contact, dids FROM contact_blacklist_sets WHERE account_id = $1 AND ${sql}`, [
      param,
    ]);
    return new Set(rows.filter((r) => r.dids.split(',').includes(did)).map((r) => r.contact));
  }
}
