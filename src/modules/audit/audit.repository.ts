import type { TenantQueries } from '../../db/tenant.js';
import { dialectOf } from '../../db/dialect.js';
import { swallowed } from '../../swallowed.js';

export interface AuditRow {
  id: number;
  at: number;
  principal_kind: string;
  principal_id: string;
  principal_name: string;
  credential: string;
  ip: string;
  operation: string;
  target_type: string;
  target_id: string | null;
  changes: string;
}

export type NewAuditRow = Omit<AuditRow, 'id'>;

export interface AuditFilter {
  from?: number;
  to?: number;
  operation?: string;
  targetType?: string;
  targetId?: string;
  principalId?: string;
  /** Only records with a smaller id (the cursor). */
  before?: number;
  limit: number;
}

/** The trigger's switch (migration 090): set for one statement of the maintenance paths, then off again. */
const MAINTENANCE = 'callcenter.audit_maintenance';

export class AuditRepository {
  constructor(private readonly t: TenantQueries) {}

  async insert(r: NewAuditRow): Promise<void> {
    await this.t.run(
      `INSERT INTO audit_log (account_id, at, principal_kind, principal_id, principal_name, credential, ip, operation, target_type, target_id, changes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [r.at, r.principal_kind, r.principal_id, r.principal_name, r.credential, r.ip, r.operation, r.target_type, r.target_id, r.changes],
    );
  }

  /** Newest first. Each filter is one optional parameter, so the statement text is the same for every request. */
  list(f: AuditFilter): Promise<AuditRow[]> {
    return this.t.all<AuditRow>(
      `SELECT id, at, principal_kind, principal_id, principal_name, credential, ip, operation, target_type, target_id, changes
         FROM audit_log
        WHERE account_id = $1
          AND (CAST($2 AS BIGINT) IS NULL OR id < $2) AND (CAST($3 AS BIGINT) IS NULL OR at >= $3) AND (CAST($4 AS BIGINT) IS NULL OR at <= $4)
          AND (CAST($5 AS TEXT) IS NULL OR operation = $5) AND (CAST($6 AS TEXT) IS NULL OR target_type = $6)
          AND (CAST($7 AS TEXT) IS NULL OR target_id = $7) AND (CAST($8 AS TEXT) IS NULL OR principal_id = $8)
        ORDER BY id DESC LIMIT $9`,
      [f.before ?? null, f.from ?? null, f.to ?? null, f.operation ?? null, f.targetType ?? null, f.targetId ?? null, f.principalId ?? null, f.limit],
    );
  }

  /** Runs `statement` with the append-only trigger switched off for it alone (PostgreSQL; SQLite has no trigger). */
  private async maintenance<T>(statement: () => Promise<T>): Promise<T> {
    const set = dialectOf(this.t).transactionSetting;
    if (set) await this.t.untenanted('a transaction-local setting read by the audit_log trigger', set, [MAINTENANCE, 'on']);
    try {
      return await statement();
    } finally {
      if (set)
        await this.t
          .untenanted('a transaction-local setting read by the audit_log trigger', set, [MAINTENANCE, 'off'])
          .catch(swallowed('audit.maintenance_off'));
    }
  }

  /** Replaces a number, as a whole JSON string or as the target id, in every earlier record (erasure). */
  pseudonymise(number: string, replacement: string): Promise<number> {
    return this.maintenance(async () => {
      const res = await this.t.run(
        `UPDATE audit_log SET
           target_id = CASE WHEN target_id = $2 THEN $3 ELSE target_id END,
           changes = replace(changes, $4, $5)
         WHERE account_id = $1 AND (target_id = $2 OR changes LIKE $6)`,
        [number, replacement, JSON.stringify(number), JSON.stringify(replacement), `%${JSON.stringify(number)}%`],
      );
      return res.changes;
    });
  }

  /** Deletes up to `limit` records older than `cutoff` (Unix seconds), oldest first (retention). */
  purgeBefore(cutoff: number, limit: number): Promise<number> {
    return this.maintenance(async () => {
      const res = await this.t.run(
        `DELETE FROM audit_log WHERE account_id = $1 AND id IN (
           SELECT id FROM audit_log WHERE account_id = $1 AND at < $2 ORDER BY id LIMIT $3)`,
        [cutoff, limit],
      );
      return res.changes;
    });
  }
}
