import fs from 'node:fs';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import BetterSqlite3 from 'better-sqlite3';
import { afterCommit, ambientOf, joinAmbient, runAmbient } from './ambient.js';
import { DatabaseUnavailableError, type Database, type Listener, type Param, type Queryable, type Row, type RunResult } from './types.js';

interface Translated {
  text: string;
  /** For each `?` in `text`, the 0-based index of the parameter it takes. */
  order: number[] | null;
}

/** `$1…$n` → `?`, remembering which parameter each position takes. */
function translate(sql: string): Translated {
  const order: number[] = [];
  const text = sql.replace(/\$(\d+)/g, (_m, n: string) => {
    order.push(Number(n) - 1);
    return '?';
  });
  const identity = order.every((v, i) => v === i);
  return { text, order: identity ? null : order };
}

function bind(params: readonly Param[], order: number[] | null): unknown[] {
  const source = order ? order.map((i) => params[i]) : params;
  const out = new Array<unknown>(source.length);
  for (let i = 0; i < source.length; i++) {
    const v = source[i];
    out[i] = v === undefined ? null : typeof v === 'boolean' ? (v ? 1 : 0) : v;
  }
  return out;
}

/**
 * The database file stayed locked by another process past the busy timeout
 * (a backup, a second process writing): the request answers 503 / 1010 like
 * an unreachable PostgreSQL, not 500.
 */
function unavailableWhenBusy(err: unknown): never {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))) throw new DatabaseUnavailableError(err);
  throw err;
}

export class SqliteDatabase implements Database {
  readonly dialect = 'sqlite' as const;
  private readonly raw: BetterSqlite3.Database;
  private readonly cache = new Map<string, { stmt: BetterSqlite3.Statement; order: number[] | null }>();
  /** Statements in raw mode (rows as arrays), kept apart: raw mode is a property of the statement. */
  private readonly rawCache: typeof this.cache = new Map();
  private readonly feed = new EventEmitter();
  /** Set while a transaction is open: other work on the single connection waits for it. */
  private txTail: Promise<void> | null = null;

  constructor(file: string, options: { busyTimeoutMs?: number } = {}) {
    if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
    this.raw = new BetterSqlite3(file);
    this.raw.pragma('journal_mode = WAL');
    // NORMAL keeps every committed transaction across a process kill (the WAL is
    // written before COMMIT returns); only an OS crash could lose the last ones.
    this.raw.pragma('synchronous = NORMAL');
    this.raw.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    this.raw.pragma('foreign_keys = ON');
    this.feed.setMaxListeners(0);
  }

  private statement(sql: string, raw = false) {
    const cache = raw ? this.rawCache : this.cache;
    let entry = cache.get(sql);
    if (!entry) {
      const t = translate(sql);
      entry = { stmt: raw ? this.raw.prepare(t.text).raw(true) : this.raw.prepare(t.text), order: t.order };
      cache.set(sql, entry);
    }
    return entry;
  }

  // Direct (no waiting) executors, used inside a transaction.
  private direct: Queryable = {
    dialect: 'sqlite',
    all: async <T = Row>(sql: string, params: readonly Param[] = []) => {
      try {
        const { stmt, order } = this.statement(sql);
        return stmt.all(...bind(params, order)) as T[];
      } catch (err) {
        return unavailableWhenBusy(err);
      }
    },
    get: async <T = Row>(sql: string, params: readonly Param[] = []) => {
      try {
        const { stmt, order } = this.statement(sql);
        return (stmt.reader ? stmt.get(...bind(params, order)) : (stmt.run(...bind(params, order)), undefined)) as T | undefined;
      } catch (err) {
        return unavailableWhenBusy(err);
      }
    },
    run: async (sql: string, params: readonly Param[] = []): Promise<RunResult> => {
      try {
        const { stmt, order } = this.statement(sql);
        if (stmt.reader) return { changes: stmt.all(...bind(params, order)).length };
        return { changes: stmt.run(...bind(params, order)).changes };
      } catch (err) {
        return unavailableWhenBusy(err);
      }
    },
    allValues: async (sql: string, params: readonly Param[] = []) => {
      try {
        const { stmt, order } = this.statement(sql, true);
        return stmt.all(...bind(params, order)) as unknown[][];
      } catch (err) {
        return unavailableWhenBusy(err);
      }
    },
  };

  async all<T = Row>(sql: string, params?: readonly Param[]): Promise<T[]> {
    if (ambientOf(this)) return this.direct.all<T>(sql, params);
    while (this.txTail) await this.txTail;
    return this.direct.all<T>(sql, params);
  }

  async get<T = Row>(sql: string, params?: readonly Param[]): Promise<T | undefined> {
    if (ambientOf(this)) return this.direct.get<T>(sql, params);
    while (this.txTail) await this.txTail;
    return this.direct.get<T>(sql, params);
  }

  async run(sql: string, params?: readonly Param[]): Promise<RunResult> {
    if (ambientOf(this)) return this.direct.run(sql, params);
    while (this.txTail) await this.txTail;
    return this.direct.run(sql, params);
  }

  async allValues(sql: string, params?: readonly Param[]): Promise<unknown[][]> {
    if (ambientOf(this)) return this.direct.allValues(sql, params);
    while (this.txTail) await this.txTail;
    return this.direct.allValues(sql, params);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    if (ambientOf(this)) return joinAmbient(this, fn);
    while (this.txTail) await this.txTail;
    let release!: () => void;
    this.txTail = new Promise<void>((resolve) => (release = resolve));
    try {
      try {
        this.raw.exec('BEGIN IMMEDIATE');
      } catch (err) {
        unavailableWhenBusy(err);
      }
      try {
        const result = await fn(this.direct);
        try {
          this.raw.exec('COMMIT');
        } catch (err) {
          unavailableWhenBusy(err);
        }
        return result;
      } catch (err) {
        if (this.raw.inTransaction) this.raw.exec('ROLLBACK');
        throw err;
      }
    } finally {
      this.txTail = null;
      release();
    }
  }

  ambient<T>(fn: () => Promise<T>): Promise<T> {
    return runAmbient(this, (body) => this.transaction(body), fn);
  }

  independent(): Queryable {
    // One connection: inside the ambient transaction the statement is part of it; other requests wait for it anyway.
    return ambientOf(this) ? this.direct : this;
  }

  async exec(sql: string): Promise<void> {
    if (ambientOf(this)) return void this.raw.exec(sql);
    while (this.txTail) await this.txTail;
    this.raw.exec(sql);
  }

  async notify(channel: string, payload: string): Promise<void> {
    // Delivered after the caller's current work (and after the ambient transaction's commit), as NOTIFY would be.
    afterCommit(() => queueMicrotask(() => this.feed.emit(channel, payload)));
  }

  async listen(channel: string, listener: Listener): Promise<() => void> {
    this.feed.on(channel, listener);
    return () => this.feed.off(channel, listener);
  }

  async ping(): Promise<void> {
    this.raw.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.raw.open) this.raw.close();
  }

  stats() {
    return { total: 1, idle: this.txTail ? 0 : 1, waiting: 0 };
  }
}
