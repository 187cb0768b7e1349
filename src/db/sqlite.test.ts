import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteDatabase, recordFiller } from './sqlite.js';
import type { Param } from './types.js';

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

// runRecords' compiled filler (recordFiller) against the plain loop it stands for.
describe('SQLite record fillers', () => {
  it('the compiled filler puts what the plain loop puts, value for value', () => {
    let seed = 34;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const values: Array<Param | undefined> = [undefined, null, true, false, 0, -0, 1.5, Number.NaN, -1e308, '', 'text', '"quoted"'];
    // Names JSON must escape: the compiled source writes them as JSON strings.
    const names = ['agent_id', 'a"b', 'back\\slash', 'line\nbreak', '__proto__', 'constructor', 'x'];
    const compiled = recordFiller(names, true);
    const plain = recordFiller(names, false);
    expect(compiled).not.toBe(plain);
    for (let n = 0; n < 500; n++) {
      const record: Record<string, Param> = Object.create(null) as Record<string, Param>;
      for (const name of names) {
        const v = values[Math.floor(random() * values.length)];
        if (v !== undefined) record[name] = v;
      }
      const at = n % 3;
      const a = new Array<unknown>(at + names.length).fill('before');
      const b = new Array<unknown>(at + names.length).fill('before');
      compiled(record, a, at);
      plain(record, b, at);
      expect(a.length).toBe(b.length);
      a.forEach((v, i) => expect(Object.is(v, b[i]), `${i}: ${String(v)} / ${String(b[i])}`).toBe(true));
    }
  });
});
