import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteDatabase } from './sqlite.js';

// Reads outside a transaction share one read transaction per event-loop turn (sqlite.ts, enter):
// a write anywhere in the process must still be seen by the next read, as with a read of its own.
describe('SQLite shared read transaction', () => {
  const dirs: string[] = [];
  const open = (dir: string) => new SqliteDatabase(path.join(dir, 'db.sqlite'));
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  const fresh = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-shared-read-'));
    dirs.push(dir);
    return dir;
  };
  const count = async (db: SqliteDatabase) => Number((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM t'))!.n);

  it('a read after a write in the same turn sees it: same connection, another connection, a transaction', async () => {
    const dir = fresh();
    const a = open(dir);
    const b = open(dir);
    try {
      await a.exec('CREATE TABLE t (x INTEGER)');
      expect(await count(a)).toBe(0); // opens a's shared read
      await a.run('INSERT INTO t (x) VALUES (1)');
      expect(await count(a)).toBe(1);
      expect(await count(b)).toBe(1); // b's shared read opens now
      await a.run('INSERT INTO t (x) VALUES (2)'); // ends b's shared read first
      expect(await count(b)).toBe(2);
      await b.transaction(async (tx) => {
        await tx.run('INSERT INTO t (x) VALUES (3)');
      });
      expect(await count(a)).toBe(3);
      expect(await count(b)).toBe(3);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('the shared read ends with the turn: a write by a connection it does not know is seen in the next turn', async () => {
    const dir = fresh();
    const a = open(dir);
    try {
      await a.exec('CREATE TABLE t (x INTEGER)');
      expect(await count(a)).toBe(0);
      // Another process's write (a CLI command beside the server) bypasses this process's connections.
      const BetterSqlite3 = (await import('better-sqlite3')).default;
      const other = new BetterSqlite3(path.join(dir, 'db.sqlite'));
      other.prepare('INSERT INTO t (x) VALUES (1)').run();
      other.close();
      await new Promise((r) => setImmediate(r));
      expect(await count(a)).toBe(1);
      // And a write after a shared read is not refused (the read transaction never blocks this process's writers).
      await a.run('INSERT INTO t (x) VALUES (2)');
      expect(await count(a)).toBe(2);
    } finally {
      await a.close();
    }
  });
});

// bulkWrite on SQLite writes up to 32 rows a statement (dialect.ts, insertRows): the rows of one statement
// must end as the same rows written one statement each, conflicts included (a key twice in one batch).
describe('SQLite multi-row bulkWrite', () => {
  it('leaves the rows one statement per row leaves, for updates and skips on a key conflict', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-bulk-write-'));
    const db = new SqliteDatabase(path.join(dir, 'db.sqlite'));
    try {
      const { bulkWrite } = await import('./bulk.js');
      const { tenant } = await import('./tenant.js');
      const columns = [
        { name: 'k', pg: 'text' as const },
        { name: 'v', pg: 'bigint' as const },
        { name: 'note', pg: 'text' as const },
      ];
      // 100 rows over 70 keys: repeats inside one 32-row statement and across statements, NULLs among the values.
      const rows = Array.from({ length: 100 }, (_, i) => ({ k: `key-${(i * 3) % 70}`, v: i, note: i % 3 === 0 ? null : `n${i}` }));
      for (const conflict of ['update', 'nothing'] as const) {
        await db.exec('DROP TABLE IF EXISTS multi; DROP TABLE IF EXISTS single');
        for (const table of ['multi', 'single'])
          await db.exec(`CREATE TABLE ${table} (account_id INTEGER, k TEXT, v INTEGER, note TEXT, PRIMARY KEY (account_id, k))`);
        await db.transaction(async (tx) => bulkWrite(tenant(tx, 9), 'multi', columns, ['k'], rows, conflict));
        await db.transaction(async (tx) => {
          for (const row of rows) await bulkWrite(tenant(tx, 9), 'single', columns, ['k'], [row], conflict);
        });
        const all = (table: string) => db.all(`SELECT account_id, k, v, note FROM ${table} ORDER BY k`);
        const multi = await all('multi');
        expect(multi).toHaveLength(70);
        expect(multi).toEqual(await all('single'));
      }
    } finally {
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
