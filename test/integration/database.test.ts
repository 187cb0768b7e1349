import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { tryLock, unlock, withLocks } from '../../src/db/locks.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { PostgresDatabase } from '../../src/db/postgres.js';
import { SqliteDatabase } from '../../src/db/sqlite.js';
import { systemClock } from '../../src/clock.js';
import { AccountService } from '../../src/modules/account/account.service.js';
import { tenant } from '../../src/db/tenant.js';
import { runCli } from '../helpers/cli.js';
import { freshDatabase, testDialects } from '../helpers/databases.js';

for (const dialect of testDialects()) {
  describe(`database layer [${dialect}]`, () => {
    it('applies each migration once when several processes migrate at the same moment', async () => {
      const t = await freshDatabase(dialect);
      try {
        const runs = await Promise.all([1, 2, 3].map(() => runCli(['migrate'], t.env)));
        for (const r of runs) expect(r.code, r.output).toBe(0);
        const all = (await loadMigrations()).map((m) => m.id).sort();
        const reported = runs.flatMap((r) => r.output.match(/applied: (.*)/)?.[1]?.split(', ') ?? []);
        expect(reported.sort()).toEqual(all);
        const rows = await t.db.all<{ id: string }>('SELECT id FROM schema_migrations');
        expect(rows.map((r) => r.id).sort()).toEqual(all);
        expect(await migrate(t.db)).toEqual([]);
      } finally {
        await t.db.close();
        await t.drop();
      }
    });

    it('scopes tenant queries and refuses a statement without account_id = $1', async () => {
      const t = await freshDatabase(dialect);
      try {
        await migrate(t.db);
        for (const [account, id] of [
          [1, 7],
          [2, 7],
        ]) {
          await tenant(t.db, account!).run('INSERT INTO groups (account_id, group_id, name, created_at) VALUES ($1, $2, $3, 0)', [id, `g${account}`]);
        }
        const mine = await tenant(t.db, 1).all<{ name: string }>('SELECT name FROM groups WHERE account_id = $1', []);
        expect(mine).toEqual([{ name: 'g1' }]);
        expect(() => tenant(t.db, 1).all('SELECT name FROM groups')).toThrow(/account_id/);
      } finally {
        await t.db.close();
        await t.drop();
      }
    });

    it('refuses an unscoped statement on every method, and runs one only through the named escape', async () => {
      const t = await freshDatabase(dialect);
      try {
        await migrate(t.db);
        const q = tenant(t.db, 1);
        const setting = "SELECT set_config('application_name', 'x', true)";
        for (const sql of ['SELECT COUNT(*) AS n FROM schema_migrations', 'SELECT 1 AS one WHERE $1 > 0', setting]) {
          expect(() => q.all(sql)).toThrow(/account_id/);
          expect(() => q.get(sql)).toThrow(/account_id/);
          expect(() => q.run(sql)).toThrow(/account_id/);
          expect(() => q.allValues(sql)).toThrow(/account_id/);
        }
        // The escape: run as written, parameters as given (no account id added as $1).
        const ids = (await loadMigrations()).map((m) => m.id);
        const rows = await q.untenanted<{ n: number }>('migration bookkeeping, not tenant data', 'SELECT COUNT(*) AS n FROM schema_migrations WHERE id = $1', [
          ids[0],
        ]);
        expect(rows.map((r) => Number(r.n))).toEqual([1]);
        await expect(q.untenanted(' ', 'SELECT COUNT(*) AS n FROM schema_migrations')).rejects.toThrow(/reason/);
        // The guard still holds after the escape was used.
        expect(() => q.all('SELECT COUNT(*) AS n FROM schema_migrations')).toThrow(/account_id/);
      } finally {
        await t.db.close();
        await t.drop();
      }
    });

    it('locks hold across connections, release, and expire when their holder died', async () => {
      const t = await freshDatabase(dialect);
      const other = t.connect();
      try {
        await migrate(t.db);
        const owner = await tryLock(t.db, 'agent:1', 10_000);
        expect(owner).not.toBeNull();
        expect(await tryLock(other, 'agent:1', 10_000)).toBeNull();
        await unlock(t.db, 'agent:1', owner!);
        expect(await tryLock(other, 'agent:1', 10_000)).not.toBeNull();
        // Held, but expired: a later taker gets it.
        expect(await tryLock(t.db, 'agent:1', 10_000, Date.now() + 20_000)).not.toBeNull();
        const blocked = await withLocks(other, ['agent:2', 'agent:1'], 10_000, async () => 'ran');
        expect(blocked).toBeNull();
        const free = await withLocks(other, ['agent:3'], 10_000, async () => 'ran');
        expect(free).toEqual({ value: 'ran' });
        expect(await tryLock(t.db, 'agent:3', 10_000)).not.toBeNull();
      } finally {
        await other.close();
        await t.db.close();
        await t.drop();
      }
    });

    it('rolls a failed transaction back', async () => {
      const t = await freshDatabase(dialect);
      try {
        await migrate(t.db);
        await expect(
          t.db.transaction(async (tx) => {
            await tx.run('INSERT INTO locks (lock_key, owner, expires_at) VALUES ($1, $2, $3)', ['k', 'o', 1]);
            throw new Error('boom');
          }),
        ).rejects.toThrow('boom');
        expect(await t.db.get('SELECT * FROM locks WHERE lock_key = $1', ['k'])).toBeUndefined();
      } finally {
        await t.db.close();
        await t.drop();
      }
    });
  });
}

describe('an unreachable database', () => {
  it('answers 503 with code 1010 and /healthz 503, without internals', async () => {
    const db = new PostgresDatabase('postgres://postgres@127.0.0.1:1/none', 1);
    const { app } = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), db });
    try {
      const res = await app.inject({ method: 'POST', url: '/api/v2/auth/login', payload: { username: 'a', password: 'b' } });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'error', code: 1010, message: 'Database connection error' });
      const health = await app.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(503);
    } finally {
      await app.close();
      await db.close();
    }
  });

  it('answers 503 / 1010 while another process keeps the SQLite file locked past the busy timeout, and recovers', async () => {
    const t = await freshDatabase('sqlite');
    const file = path.join(t.env.DATA_DIR!, 'callcenter.db');
    await migrate(t.db);
    await new AccountService({ db: t.db, clock: systemClock }).create({ username: 'busy-owner', password: 'busy-owner-password' });
    await t.db.close();
    const db = new SqliteDatabase(file, { busyTimeoutMs: 50 });
    const other = new BetterSqlite3(file);
    const { app } = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), db });
    const login = () => app.inject({ method: 'POST', url: '/api/v2/auth/login', payload: { username: 'busy-owner', password: 'busy-owner-password' } });
    try {
      other.exec('BEGIN IMMEDIATE'); // the other process writes and holds the lock
      const res = await login();
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'error', code: 1010, message: 'Database connection error' });
      other.exec('COMMIT');
      const again = await login();
      expect(again.statusCode).toBe(200);
      expect(again.json()).toMatchObject({ status: 'success' });
    } finally {
      other.close();
      await app.close();
      await db.close();
      await t.drop();
    }
  });

  it('answers /healthz 503 until migrations ran', async () => {
    const t = await freshDatabase('sqlite');
    let ready = false;
    const { app } = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), db: t.db, ready: () => ready });
    try {
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(503);
      await migrate(t.db);
      ready = true;
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await t.db.close();
      await t.drop();
    }
  });
});
