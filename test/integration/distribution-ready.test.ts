import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { freshDatabase, testDialects, type TestDatabase } from '../helpers/databases.js';

/**
 * Ready for more than one PostgreSQL (docs/deployment.md, "Growing past one
 * PostgreSQL"): read from PostgreSQL's own catalog after every migration,
 * every tenant table (one with an `account_id` column) can be distributed
 * by `account_id` as Citus requires — its primary key, every unique
 * constraint and unique index, and every foreign key to another tenant
 * table include `account_id` — and the tables without it are exactly the
 * shared ones listed here, each with the reason it is shared. A new table
 * fails this test until it is one or the other.
 */

/** Tables with no `account_id`: Citus reference tables (copied to every node) or a node's own bookkeeping. */
const SHARED: Record<string, string> = {
  accounts: "the tenants themselves (keyed by id, the other tables' account_id): a reference table, small and read by every request",
  schema_migrations: 'which migrations ran: schema bookkeeping, applied by the coordinator',
  locks: 'cross-node locks (db/locks.ts) keyed by a name; a reference table, or kept on the coordinator',
  login_failures: 'login protection (PRODUCT.md §4) counts failures per username and per client IP, before any account is known',
  recording_keys: 'the one service-wide key that signs recording links (callreport/): a reference table',
};

/**
 * The unique keys of tenant tables that are not per account, by design:
 * each is looked up before the account is known, so it is unique across
 * the service. On Citus each becomes a lookup table distributed by that
 * key (docs/deployment.md, "What changes"); here they are listed so that no
 * other key can slip in.
 */
const SERVICE_WIDE_KEYS: Record<string, string> = {
  'agents: agents_email (email)': 'an agent logs in by e-mail alone; an e-mail is one login in the whole service (PRODUCT.md §4)',
  'api_tokens: api_tokens_token_hash_key (token_hash)': 'a token is resolved from its hash before its account is known',
  'sessions: sessions_pkey (token_hash)': 'a session id is resolved from its hash before its account is known',
  'dids: dids_pkey (did)': 'a DID (a phone number) belongs to one account in the whole service: the switch routes a call by it',
};

interface Unique {
  table: string;
  index: string;
  primary: boolean;
  /** Comma-separated; an expression column is not listed. */
  columns: string;
  expression: boolean;
}

const has = (columns: string | null, column: string) => (columns ?? '').split(',').includes(column);

for (const dialect of testDialects().filter((d) => d === 'postgres')) {
  describe(`tables distributable by account_id (Citus) [${dialect}]`, () => {
    let t: TestDatabase;
    let tenantTables: string[] = [];
    let sharedTables: string[] = [];
    beforeAll(async () => {
      t = await freshDatabase(dialect);
      await migrate(t.db);
      const tables = await t.db.all<{ name: string; tenant: boolean }>(
        `SELECT c.relname AS name,
                EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'account_id' AND a.attnum > 0 AND NOT a.attisdropped) AS tenant
           FROM pg_class c
          WHERE c.relnamespace = CAST(current_schema() AS regnamespace) AND c.relkind IN ('r', 'p') AND NOT c.relispartition
          ORDER BY c.relname`,
      );
      tenantTables = tables.filter((r) => r.tenant).map((r) => r.name);
      sharedTables = tables.filter((r) => !r.tenant).map((r) => r.name);
    });
    afterAll(async () => {
      await t.db.close();
      await t.drop();
    });

    it('the tables without account_id are exactly the shared ones listed, each with its reason', () => {
      expect(tenantTables.length).toBeGreaterThan(20);
      expect(sharedTables).toEqual(Object.keys(SHARED).sort());
      console.info(`tenant tables (distributed by account_id): ${tenantTables.join(', ')}\nshared tables: ${sharedTables.join(', ')}`);
    });

    it("every tenant table's primary key, unique constraints and unique indexes include account_id (but the service-wide login and routing keys)", async () => {
      const uniques = await t.db.all<Unique>(
        `SELECT tb.relname AS "table", ix.relname AS "index", i.indisprimary AS "primary",
                (SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
                   JOIN pg_attribute a ON a.attrelid = tb.oid AND a.attnum = k.attnum) AS columns,
                i.indexprs IS NOT NULL AS expression
           FROM pg_index i
           JOIN pg_class ix ON ix.oid = i.indexrelid
           JOIN pg_class tb ON tb.oid = i.indrelid
          WHERE tb.relnamespace = CAST(current_schema() AS regnamespace) AND i.indisunique
          ORDER BY tb.relname, ix.relname`,
      );
      const tenant = new Set(tenantTables);
      expect(uniques.filter((u) => tenant.has(u.table)).length).toBeGreaterThan(20);
      const violations = uniques.filter((u) => tenant.has(u.table) && !has(u.columns, 'account_id')).map((u) => `${u.table}: ${u.index} (${u.columns})`);
      expect(violations).toEqual(Object.keys(SERVICE_WIDE_KEYS).sort());
      const withoutKey = tenantTables.filter((name) => !uniques.some((u) => u.table === name && u.primary));
      expect(withoutKey, 'tenant tables without a primary key').toEqual([]);
    });

    it('every foreign key between tenant tables includes account_id on both sides', async () => {
      const keys = await t.db.all<{ name: string; from: string; to: string; columns: string }>(
        `SELECT con.conname AS name, src.relname AS "from", dst.relname AS "to",
                (SELECT string_agg(a.attname, ',') FROM unnest(con.conkey) AS k(attnum)
                   JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum) AS columns
           FROM pg_constraint con
           JOIN pg_class src ON src.oid = con.conrelid
           JOIN pg_class dst ON dst.oid = con.confrelid
          WHERE con.contype = 'f' AND src.relnamespace = CAST(current_schema() AS regnamespace)`,
      );
      const tenant = new Set(tenantTables);
      expect(keys.filter((k) => tenant.has(k.from) && tenant.has(k.to) && !has(k.columns, 'account_id')).map((k) => `${k.from} → ${k.to}: ${k.name}`)).toEqual(
        [],
      );
    });
  });
}
