import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type pg from 'pg';
import { ambientOf, joinAmbient, runAmbient } from './ambient.js';
import { DatabaseUnavailableError } from './types.js';
import type { Database, Listener, Param, Queryable, Row, RunResult } from './types.js';
import { swallowed } from '../swallowed.js';

let driver: typeof pg | null = null;

/**
 * The driver, loaded when the first PostgreSQL database is opened: a node on
 * the embedded database never holds it (about 3 MB of heap, PRODUCT.md §8).
 */
function pgDriver(): typeof pg {
  if (driver) return driver;
  const loaded = createRequire(import.meta.url)('pg') as typeof pg;
  // BIGINT and COUNT(*) arrive as strings by default; every id and counter here fits a double.
  loaded.types.setTypeParser(20, (v) => Number(v));
  loaded.types.setTypeParser(1700, (v) => Number(v));
  return (driver = loaded);
}

const names = new Map<string, string>();
/** A stable statement name per SQL text: each pooled connection prepares it once. */
function statementName(sql: string): string {
  let name = names.get(sql);
  if (!name) {
    name = 's' + createHash('sha1').update(sql).digest('hex').slice(0, 20);
    names.set(sql, name);
  }
  return name;
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

function isUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (!e) return false;
  if (e.code && UNAVAILABLE_CODES.has(e.code)) return true;
  return /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect/i.test(e.message ?? '');
}

function values(params: readonly Param[]): unknown[] {
  return params.map((v) => (v === undefined ? null : v));
}

async function query<T>(client: pg.Pool | pg.PoolClient, sql: string, params: readonly Param[]): Promise<pg.QueryResult<T & pg.QueryResultRow>> {
  try {
    return await client.query<T & pg.QueryResultRow>({ name: statementName(sql), text: sql, values: values(params) });
  } catch (err) {
    throw isUnavailable(err) ? new DatabaseUnavailableError(err) : err;
  }
}

async function queryValues(client: pg.Pool | pg.PoolClient, sql: string, params: readonly Param[]): Promise<unknown[][]> {
  try {
    return (await client.query<unknown[]>({ name: statementName(sql), text: sql, values: values(params), rowMode: 'array' })).rows;
  } catch (err) {
    throw isUnavailable(err) ? new DatabaseUnavailableError(err) : err;
  }
}

function executor(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    dialect: 'postgres',
    all: async <T = Row>(sql: string, params: readonly Param[] = []) => (await query<T>(client, sql, params)).rows,
    get: async <T = Row>(sql: string, params: readonly Param[] = []) => (await query<T>(client, sql, params)).rows[0],
    run: async (sql: string, params: readonly Param[] = []): Promise<RunResult> => ({
      changes: (await query(client, sql, params)).rowCount ?? 0,
    }),
    allValues: (sql: string, params: readonly Param[] = []) => queryValues(client, sql, params),
    getValues: async (sql: string, params: readonly Param[] = []) => (await queryValues(client, sql, params))[0],
  };
}

export class PostgresDatabase implements Database {
  readonly dialect = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly exec_: Queryable;
  private listenClient: pg.Client | null = null;
  private readonly listeners = new Map<string, Set<Listener>>();

  constructor(
    private readonly url: string,
    poolSize: number,
    /** Extra server options, e.g. `-c search_path=…` for isolated test schemas. */
    private readonly options?: string,
  ) {
    this.pool = new (pgDriver().Pool)({ connectionString: url, max: poolSize, options, connectionTimeoutMillis: 5000 });
    // An idle client that loses its server must not crash the process.
    this.pool.on('error', () => undefined);
    this.exec_ = executor(this.pool);
  }

  /** Inside the ambient transaction every statement runs on its connection (it sees its own writes, waits on no lock of its own). */
  private q(): Queryable {
    return ambientOf(this) ?? this.exec_;
  }
  all<T = Row>(sql: string, params?: readonly Param[]) {
    return this.q().all<T>(sql, params);
  }
  get<T = Row>(sql: string, params?: readonly Param[]) {
    return this.q().get<T>(sql, params);
  }
  run(sql: string, params?: readonly Param[]) {
    return this.q().run(sql, params);
  }
  allValues(sql: string, params?: readonly Param[]) {
    return this.q().allValues(sql, params);
  }
  getValues(sql: string, params?: readonly Param[]) {
    return this.q().getValues(sql, params);
  }

  ambient<T>(fn: () => Promise<T>): Promise<T> {
    return runAmbient(this, (body) => this.transaction(body), fn);
  }

  independent(): Queryable {
    return this.exec_;
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    if (ambientOf(this)) return joinAmbient(this, fn);
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw new DatabaseUnavailableError(err);
    }
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await fn(executor(client));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      throw isUnavailable(err) ? new DatabaseUnavailableError(err) : err;
    } finally {
      client.release(broken);
    }
  }

  async exec(sql: string): Promise<void> {
    try {
      await this.pool.query(sql);
    } catch (err) {
      throw isUnavailable(err) ? new DatabaseUnavailableError(err) : err;
    }
  }

  async notify(channel: string, payload: string): Promise<void> {
    // Inside the ambient transaction NOTIFY is part of it: PostgreSQL delivers it at commit and drops it on rollback.
    const tx = ambientOf(this);
    if (tx) await tx.run('SELECT pg_notify($1, $2)', [channel, payload]);
    else await this.pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  private async ensureListener(): Promise<pg.Client> {
    if (this.listenClient) return this.listenClient;
    const client = new (pgDriver().Client)({ connectionString: this.url, options: this.options });
    client.on('error', () => {
      // Reconnect on the next listen; subscribers keep their registrations.
      this.listenClient = null;
      setTimeout(() => void this.relisten(), 1000).unref();
    });
    client.on('notification', (msg) => {
      const set = this.listeners.get(msg.channel);
      if (set) for (const l of set) l(msg.payload ?? '');
    });
    await client.connect();
    this.listenClient = client;
    return client;
  }

  private async relisten(): Promise<void> {
    try {
      const client = await this.ensureListener();
      for (const channel of this.listeners.keys()) await client.query(`LISTEN "${channel}"`);
    } catch {
      setTimeout(() => void this.relisten(), 2000).unref();
    }
  }

  async listen(channel: string, listener: Listener): Promise<() => void> {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      const client = await this.ensureListener();
      await client.query(`LISTEN "${channel}"`);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  async ping(): Promise<void> {
    await this.exec_.get('SELECT 1 AS one');
  }

  async close(): Promise<void> {
    const l = this.listenClient;
    this.listenClient = null;
    if (l) await l.end().catch(swallowed('postgres.listener_end'));
    await this.pool.end();
  }

  stats() {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }
}
