import { columnTypes, type Migration } from '../migrate.js';

/**
 * The audit trail (PRODUCT.md §12, src/modules/audit): one row per
 * successful change, written in the change's transaction. Append-only: on
 * PostgreSQL a trigger refuses UPDATE, DELETE and TRUNCATE unless the
 * transaction set `callcenter.audit_maintenance` to `on` (SET LOCAL), which
 * only the two maintenance paths of the audit service do (erasure's
 * pseudonymisation and the retention purge). SQLite has no such guard: an
 * embedded database file is as writable as the process that owns it.
 */
export const migration: Migration = {
  id: '090_audit_log',
  up(d) {
    const t = columnTypes(d);
    const pg = d === 'postgres';
    return `
CREATE TABLE audit_log (
  id ${t.autoId},
  account_id BIGINT NOT NULL,
  at BIGINT NOT NULL,
  principal_kind TEXT NOT NULL,
  principal_id TEXT NOT NULL,
  principal_name TEXT NOT NULL DEFAULT '',
  credential TEXT NOT NULL,
  ip TEXT NOT NULL DEFAULT '',
  operation TEXT NOT NULL,
  target_type TEXT NOT NULL,
  target_id TEXT,
  changes TEXT NOT NULL
);
CREATE INDEX audit_log_by_account ON audit_log (account_id, id);
CREATE INDEX audit_log_by_at ON audit_log (account_id, at);
${
  pg
    ? `CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF current_setting('callcenter.audit_maintenance', true) = 'on' THEN IF TG_OP = 'DELETE' THEN RETURN OLD; END IF; RETURN NEW; END IF; RAISE EXCEPTION 'audit_log is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege'; END $$;
CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();`
    : ''
}
CREATE TABLE login_failures (
  subject TEXT PRIMARY KEY,
  failures INTEGER NOT NULL,
  first_at BIGINT NOT NULL,
  last_at BIGINT NOT NULL,
  blocked_until BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX login_failures_last ON login_failures (last_at);
`;
  },
};
