import { inList } from '../../db/in-list.js';
import type { TenantQueries } from '../../db/tenant.js';

/** DNC status per number: a row means "on the list" (-1 permanently, else until that Unix second). */
export class DncRepository {
  constructor(private readonly t: TenantQueries) {}

  /** The stored status, 0 when none (expiry is the service's business). */
  async get(contact: string): Promise<number> {
    const row = await this.t.get<{ dnc: number }>('SELECT dnc FROM contact_dnc WHERE account_id = $1 AND contact = $2', [contact]);
    return row ? Number(row.dnc) : 0;
  }

  /** The stored statuses of `contacts` that have one (db/batched-point-read.ts). */
  async getMany(contacts: string[]): Promise<Map<string, number>> {
    const { sql, param } = inList(this.t, 'contact', 2, contacts);
    const rows = await this.t.allValues(`SELECT contact, dnc FROM contact_dnc WHERE account_id = $1 AND ${sql}`, [param]);
    return new Map(rows.map((r) => [r[0] as string, Number(r[1])]));
  }

  async set(contact: string, dnc: number, now: number): Promise<void> {
    await this.t.run(
      `INSERT INTO contact_dnc (account_id, contact, dnc, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id, contact) DO UPDATE SET dnc = excluded.dnc, updated_at = excluded.updated_at`,
      [contact, dnc, now],
    );
  }

  async clear(contact: string): Promise<void> {
    await this.t.run('DELETE FROM contact_dnc WHERE account_id = $1 AND contact = $2', [contact]);
  }
}
