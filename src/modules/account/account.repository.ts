import type { Queryable } from '../../db/types.js';

export interface AccountRow {
  id: number;
  username: string;
  name: string;
  is_operator: number;
  timezone: string;
  default_group_id: number | null;
  ghost_threshold_secs: number;
  custom_fields: string;
  retention_call_days: number | null;
  retention_recording_days: number | null;
  retention_audit_days: number | null;
  break_reasons: string;
}

/** The accounts table. Accounts are the tenants themselves, so this repository is not tenant-scoped. */
export class AccountRepository {
  constructor(private readonly db: Queryable) {}

  count() {
    return this.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM accounts').then((r) => Number(r?.n ?? 0));
  }

  async insert(a: { username: string; passwordHash: string; name: string; timezone: string; isOperator: boolean; now: number }) {
    const row = await this.db.get<{ id: number }>(
      `INSERT INTO accounts (username, password_hash, name, timezone, is_operator, created_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [a.username, a.passwordHash, a.name, a.timezone, a.isOperator ? 1 : 0, a.now],
    );
    return row!.id;
  }

  /** A login name is taken by a client username or by an agent e-mail (logins share one namespace). */
  async loginTaken(name: string) {
    const row = await this.db.get(
      `SELECT 1 AS taken FROM accounts WHERE username = $1
       UNION ALL SELECT 1 AS taken FROM agents WHERE email = $2 AND is_deleted = 0`,
      [name, name.toLowerCase()],
    );
    return row !== undefined;
  }

  byId(id: number) {
    return this.db.get<AccountRow>(
      `SELECT id, username, name, is_operator, timezone, default_group_id, ghost_threshold_secs, custom_fields,
       retention_call_days, retention_recording_days, retention_audit_days, break_reasons FROM accounts WHERE id = $1`,
      [id],
    );
  }

  updateSettings(
    id: number,
    s: {
      timezone: string;
      defaultGroupId: number | null;
      ghostThresholdSecs: number;
      customFields: string;
      retention: { callDays: number | null; recordingDays: number | null; auditDays: number | null };
      breakReasons: string;
    },
  ) {
    return this.db.run(
      `UPDATE accounts SET timezone = $2, default_group_id = $3, ghost_threshold_secs = $4, custom_fields = $5,
       retention_call_days = $6, retention_recording_days = $7, retention_audit_days = $8, break_reasons = $9 WHERE id = $1`,
      [
        id,
        s.timezone,
        s.defaultGroupId,
        s.ghostThresholdSecs,
        s.customFields,
        s.retention.callDays,
        s.retention.recordingDays,
        s.retention.auditDays,
        s.breakReasons,
      ],
    );
  }

  /** Accounts with any retention set (the retention job's work list; few rows, no tenant scope: it walks every tenant). */
  withRetention() {
    return this.db.all<{ id: number; retention_call_days: number | null; retention_recording_days: number | null; retention_audit_days: number | null }>(
      `SELECT id, retention_call_days, retention_recording_days, retention_audit_days FROM accounts
       WHERE retention_call_days IS NOT NULL OR retention_recording_days IS NOT NULL OR retention_audit_days IS NOT NULL ORDER BY id`,
    );
  }
}
