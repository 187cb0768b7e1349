import type { TenantQueries } from '../../db/tenant.js';

export interface DidRow {
  did: string;
  name: string;
  created_at: number;
}

export class DidRepository {
  constructor(private readonly t: TenantQueries) {}

  /** The subset of `dids` that belongs to the account. */
  async owned(dids: string[]): Promise<Set<string>> {
    if (dids.length === 0) return new Set();
    const rows = await this.t.all<{ did: string }>(
      `SELECT did FROM dids WHERE account_id = $1 AND did IN (${dids.map((_, i) => `$${i + 2}`).join(', ')})`,
      dids,
    );
    return new Set(rows.map((r) => r.did));
  }

  /**
   * Inserts the number for the account; false when any account already has it
   * (the primary key is the number alone: a number belongs to one tenant).
   */
  async insert(did: string, name: string, now: number): Promise<boolean> {
    const res = await this.t.run('INSERT INTO dids (account_id, did, name, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (did) DO NOTHING', [did, name, now]);
    return res.changes === 1;
  }

  async remove(did: string): Promise<boolean> {
    const res = await this.t.run('DELETE FROM dids WHERE account_id = $1 AND did = $2', [did]);
    return res.changes === 1;
  }

  list() {
    return this.t.all<DidRow>('SELECT did, name, created_at FROM dids WHERE account_id = $1 ORDER BY did');
  }
}
