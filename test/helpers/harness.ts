import { afterAll, beforeAll, describe } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Services } from '../../src/modules/services.js';
import { ManualClock } from '../../src/clock.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import type { AppContext } from '../../src/context.js';
import { migrate } from '../../src/db/migrate.js';
import type { Database, Dialect } from '../../src/db/types.js';
import { AccountService } from '../../src/modules/account/account.service.js';
import { freshDatabase, testDialects, type TestDatabase } from './databases.js';

export const OPERATOR = { username: 'operator', password: 'operator-password' };

export interface ApiAnswer<T = Record<string, unknown>> {
  http: number;
  body: T & { status: string; code: number; message?: string };
  headers: Record<string, unknown>;
}

export interface Harness {
  dialect: Dialect;
  app: FastifyInstance;
  ctx: AppContext;
  /** The app's services, built once by its composition root (src/modules/services.ts). */
  services: Services;
  db: Database;
  testDb: TestDatabase;
  clock: ManualClock;
  /** POST a JSON body (objects are serialised; strings are sent as they are). */
  post<T = Record<string, unknown>>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiAnswer<T>>;
}

export interface HarnessOptions {
  config?: Partial<Config>;
  /** The database the app is built on, given the real one (a counting wrapper: helpers/counting-db.ts). */
  wrapDb?: (db: Database) => Database;
}

/** Builds an app on a fresh, migrated database with the operator account bootstrapped. */
export async function startHarness(dialect: Dialect, opts: HarnessOptions = {}): Promise<Harness> {
  const testDb = await freshDatabase(dialect);
  const db = testDb.db;
  await migrate(db);
  const clock = new ManualClock(Date.now());
  // No dialer ticking in the background: tests tick it by hand after moving the clock (campaigns.fixtures.ts `tick`);
  // a tick of its own between two of a test's steps dials what the test's next tick expected to (CI 2026-11-29).
  const config: Config = { ...loadConfig({ LOG_LEVEL: 'silent', POISON_RELEASED_CHUNKS: '1', CAMPAIGN_DIALER: '0' }), ...opts.config };
  await new AccountService({ db, clock }).bootstrap(OPERATOR.username, OPERATOR.password);
  const { app, ctx, services } = await buildApp({ config, db: opts.wrapDb ? opts.wrapDb(db) : db, clock, validateResponses: true });
  await app.ready();
  const post: Harness['post'] = async (path, body, headers = {}) => {
    const res = await app.inject({
      method: 'POST',
      url: path,
      payload: typeof body === 'string' || body === undefined ? body : JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...headers },
    });
    return { http: res.statusCode, body: res.json(), headers: res.headers };
  };
  return { dialect, app, ctx, services, db, testDb, clock, post };
}

export async function stopHarness(h: Harness): Promise<void> {
  await h.app.close();
  await h.db.close();
  await h.testDb.drop();
}

/**
 * Declares the suite once per database backend. `use()` returns the harness of
 * the running backend (built before the suite's tests, torn down after).
 */
export function forEachDatabase(title: string, suite: (use: () => Harness) => void, opts: HarnessOptions = {}): void {
  for (const dialect of testDialects()) {
    describe(`${title} [${dialect}]`, () => {
      let h: Harness | undefined;
      beforeAll(async () => {
        h = await startHarness(dialect, opts);
      });
      afterAll(async () => {
        if (h) await stopHarness(h);
      });
      suite(() => {
        if (!h) throw new Error('harness not started');
        return h;
      });
    });
  }
}
