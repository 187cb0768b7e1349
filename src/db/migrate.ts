import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dialectOf, type DialectOps } from './dialect.js';
import type { Database, Dialect } from './types.js';

export interface Migration {
  /** Sorts the migrations; the file name without extension, e.g. `001_foundation`. */
  id: string;
  up(dialect: Dialect): string;
}

/** Column types that differ between the two backends (`DialectOps.columnTypes`). */
export function columnTypes(d: Dialect): DialectOps['columnTypes'] {
  return dialectOf(d).columnTypes;
}

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Every migration under db/migrations, in id order (files are named `NNN_name.ts`). */
export async function loadMigrations(): Promise<Migration[]> {
  const files = fs
    .readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.(ts|js)$/.test(f) && !f.endsWith('.d.ts'))
    .sort();
  const out: Migration[] = [];
  for (const f of files) {
    const mod = (await import(pathToFileURL(path.join(dir, f)).href)) as { migration: Migration };
    out.push(mod.migration);
  }
  return out;
}

// Any constant works; every node takes the same one.
const MIGRATION_LOCK = 7_241_001;

/**
 * Applies what is missing, each migration in its own transaction. Nodes that
 * start together queue on one lock (PostgreSQL advisory lock; SQLite's
 * BEGIN IMMEDIATE), so each migration runs exactly once.
 */
export async function migrate(db: Database, migrations?: Migration[]): Promise<string[]> {
  const all = migrations ?? (await loadMigrations());
  const applied: string[] = [];
  for (const m of all) {
    const done = await db.transaction(async (tx) => {
      // Under the lock even the bookkeeping table is created by one node only.
      await dialectOf(tx).transactionLock(tx, [MIGRATION_LOCK]);
      await tx.run('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)');
      const seen = await tx.get('SELECT id FROM schema_migrations WHERE id = $1', [m.id]);
      if (seen) return false;
      for (const statement of splitStatements(m.up(tx.dialect))) await tx.run(statement);
      await tx.run('INSERT INTO schema_migrations (id, applied_at) VALUES ($1, $2)', [m.id, Date.now()]);
      return true;
    });
    if (done) applied.push(m.id);
  }
  return applied;
}

/** Migrations are plain DDL separated by `;` at line ends (no procedural bodies). */
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
