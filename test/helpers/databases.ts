import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PostgresDatabase } from '../../src/db/postgres.js';
import { SqliteDatabase } from '../../src/db/sqlite.js';
import type { Database, Dialect, Queryable } from '../../src/db/types.js';

/**
 * The backends every integration test runs against: SQLite always, and
 * PostgreSQL when TEST_DATABASE_URL is set. With REQUIRE_POSTGRES=1 (CI) a
 * missing TEST_DATABASE_URL is an error, so the PostgreSQL half cannot be
 * skipped silently.
 */
export function testDialects(): Dialect[] {
  if (process.env.REQUIRE_POSTGRES === '1' && !process.env.TEST_DATABASE_URL) {
    throw new Error('REQUIRE_POSTGRES=1 but TEST_DATABASE_URL is not set');
  }
  return process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

export interface TestDatabase {
  db: Database;
  /** For a second node: another connection to the same database. */
  connect(): Database;
  /** Connection settings, for starting server processes against it. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** A fresh, empty database: a temporary SQLite file, or a new PostgreSQL schema. */
export async function freshDatabase(dialect: Dialect): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'callcenter-test-'));
    const file = path.join(dir, 'callcenter.db');
    return {
      db: new SqliteDatabase(file),
      connect: () => new SqliteDatabase(file),
      env: { DATA_DIR: dir },
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const url = process.env.TEST_DATABASE_URL!;
  if (process.env.PG_SUITES_MARKER) fs.appendFileSync(process.env.PG_SUITES_MARKER, 'postgres suite\n');
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const options = `-c search_path=${schema}`;
  const withSchema = `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(options)}`;
  return {
    db: new PostgresDatabase(url, 4, options),
    connect: () => new PostgresDatabase(url, 4, options),
    env: { DATABASE_URL: withSchema },
    drop: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    },
  };
}

/**
 * `tx` without its optional `runRows`: code that takes a fast path when the executor has it
 * (SQLite's transaction executor) takes its plain path instead, so a test can compare the two.
 */
export function withoutRunRows(tx: Queryable): Queryable {
  return {
    dialect: tx.dialect,
    all: (sql, params) => tx.all(sql, params),
    get: (sql, params) => tx.get(sql, params),
    run: (sql, params) => tx.run(sql, params),
    allValues: (sql, params) => tx.allValues(sql, params),
    getValues: (sql, params) => tx.getValues(sql, params),
  };
}
