import fs from 'node:fs';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import BetterSqlite3 from 'better-sqlite3';
import { afterCommit, ambientOf, joinAmbient, runAmbient } from './ambient.js';
import { DatabaseUnavailableError, type Database, type Listener, type Param, type Queryable, type Row, type RunResult } from './types.js';
import { SQLITE_WAL_AUTOCHECKPOINT } from './dialect.js';
import { mayGenerateCode } from '../code-generation.js';

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

/** A parameter as better-sqlite3 binds it: no undefined, no booleans. */
function sqlValue(v: Param | undefined): unknown {
  return v === undefined ? null : typeof v === 'boolean' ? (v ? 1 : 0) : v;
}

function bind(params: readonly Param[], order: number[] | null): unknown[] {
  const source = order ? order.map((i) => params[i]) : params;
  const out = new Array<unknown>(source.length);
  for (let i = 0; i < source.length; i++) out[i] = sqlValue(source[i]);
  return out;
}

/** `bind` of `lead` followed by `row`, into `out` (runRows: one array for all the rows of a statement). */
function bindRow(lead: readonly Param[], row: readonly Param[], out = new Array<unknown>(lead.length + row.length)): unknown[] {
  const n = lead.length;
  for (let i = 0; i < n; i++) out[i] = sqlValue(lead[i]);
  for (let i = 0; i < row.length; i++) out[n + i] = sqlValue(row[i]);
  return out;
}

/** Puts `sqlValue` of each of a record's `names` into `params` from position `at` (runRecords). */
export type RecordFiller = (record: Readonly<Record<string, Param>>, params: unknown[], at: number) => void;

/** The plain filler: each name read from the record in a loop. */
function plainFiller(names: readonly string[]): RecordFiller {
  return (record, params, at) => {
    for (let i = 0; i < names.length; i++) params[at + i] = sqlValue(record[names[i]!]);
  };
}

const fillers = new Map<string, RecordFiller>();

/**
 * The filler of `names`: compiled once per name list (each name a property
 * read of its own) when the process may compile code, the plain loop
 * otherwise (`generate` false: what the test compares it with). A loop's
 * `record[names[i]]` is a keyed read the engine cannot specialise (every
 * table's names pass through it). Measured on a complete-call batch's
 * runRecords writers (live_agents, live_calls, agent_state_recent, event_ids,
 * the call history; SQLite, one process, batches one way or the other at
 * random, ~260 each, sum of the writers' medians): 5.17 → 4.79 ms and
 * 4.33 → 4.16 ms in two runs, every writer lower or equal: 1–2.5 % of a
 * batch's CPU. The names are the code's column lists (never
 * input), written into the source as JSON strings.
 */
export function recordFiller(names: readonly string[], generate = mayGenerateCode()): RecordFiller {
  if (!generate) return plainFiller(names);
  const key = names.join('\u0000');
  let filler = fillers.get(key);
  if (!filler) {
    const body = names
      .map((name, i) => `v = r[${JSON.stringify(name)}]; p[at + ${i}] = v === undefined ? null : typeof v === 'boolean' ? (v ? 1 : 0) : v;`)
      .join('\n');
    filler = new Function('r', 'p', 'at', `let v;\n${body}`) as RecordFiller;
    fillers.set(key, filler);
  }
  return filler;
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
  /** Connections of this process holding a shared read transaction (`enter`). */
  private static readonly reading = new Set<SqliteDatabase>();

  /** Ends every shared read transaction of the process: before any write, on any connection (tests run several nodes in one process). */
  private static endSharedReads(): void {
    for (const db of SqliteDatabase.reading) db.endSharedRead();
  }

  readonly dialect = 'sqlite' as const;
  private readonly raw: BetterSqlite3.Database;
  private readonly cache = new Map<string, { stmt: BetterSqlite3.Statement; order: number[] | null }>();
  /** Statements in raw mode (rows as arrays), kept apart: raw mode is a property of the statement. */
  private readonly rawCache: typeof this.cache = new Map();
  private readonly feed = new EventEmitter();
  /** Set while a transaction is open: other work on the single connection waits for it. */
  private txTail: Promise<void> | null = null;
  private readonly beginRead: BetterSqlite3.Statement;
  private readonly commitRead: BetterSqlite3.Statement;
  /** A read transaction shared by the reads of this event-loop turn is open (`enter`). */
  private sharedRead = false;

  constructor(file: string, options: { busyTimeoutMs?: number } = {}) {
    if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
    this.raw = new BetterSqlite3(file);
    this.raw.pragma('journal_mode = WAL');
    // NORMAL keeps every committed transaction across a process kill (the WAL is
    // written before COMMIT returns); only an OS crash could lose the last ones.
    this.raw.pragma('synchronous = NORMAL');
    this.raw.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    this.raw.pragma('foreign_keys = ON');
    this.raw.pragma(`wal_autocheckpoint = ${SQLITE_WAL_AUTOCHECKPOINT}`);
    this.feed.setMaxListeners(0);
    this.beginRead = this.raw.prepare('BEGIN');
    this.commitRead = this.raw.prepare('COMMIT');
  }

  /**
   * Before a statement outside a transaction. A read joins one read
   * transaction shared by every read of the current event-loop turn, closed
   * when the turn ends (setImmediate): a read on its own is its own
   * transaction, whose WAL read lock (two fcntl calls) and snapshot checks
   * cost ~2 µs, most of a DNC lookup's 2.3 µs. Measured per DNC read
   * (SqliteDatabase.get, its share of the turn included): 1.5 µs instead
   * of 3.0 with 5 reads a turn; a turn with a single read pays 1–2 µs more
   * (BEGIN, COMMIT, the immediate), which only happens when the process has
   * time to spare. Sharing only from a turn's second read on was measured
   * too: worse under load, hardly better alone. Any write first ends the
   * shared reads of every connection of the process, so a read after a write
   * sees it as before; the process is the only writer (docs/deployment.md:
   * one process per DATA_DIR), so what a shared read sees is what a read of
   * its own would have seen.
   */
  private enter(stmt: BetterSqlite3.Statement): void {
    if (!stmt.readonly) return SqliteDatabase.endSharedReads();
    if (this.sharedRead || this.raw.inTransaction) return;
    this.beginRead.run();
    this.sharedRead = true;
    SqliteDatabase.reading.add(this);
    setImmediate(this.endSharedRead);
  }

  private readonly endSharedRead = (): void => {
    if (!this.sharedRead) return;
    this.sharedRead = false;
    SqliteDatabase.reading.delete(this);
    if (this.raw.open && this.raw.inTransaction) this.commitRead.run();
  };

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

  /**
   * Executors without waiting; `enter` runs before each statement (outside a transaction: the shared read).
   * `withRows`: the transaction's executor also has `runRows`.
   */
  private executors(enter: (stmt: BetterSqlite3.Statement) => void, withRows = false): Queryable {
    const runRows = async (sql: string, lead: readonly Param[], rows: ReadonlyArray<readonly Param[]>): Promise<void> => {
      try {
        const { stmt, order } = this.statement(sql);
        if (stmt.reader) throw new Error(`runRows of a statement that answers rows: ${sql.slice(0, 80)}`);
        enter(stmt);
        // One loop, no await: the per-row promise, tenant's and bind's copies of the parameters cost
        // ~0.8 µs of a ~3.4 µs live_agents upsert (~1,500 rows a complete-call batch).
        if (order) for (const row of rows) stmt.run(...bind([...lead, ...row], order));
        else {
          // One parameter array for every row, filled anew (better-sqlite3 copies the values as it binds them):
          // an array a row was ~10 % of a complete-call batch's allocation (bench/gc-meter.ts).
          const width = lead.length + (rows[0]?.length ?? 0);
          const params = new Array<unknown>(width);
          for (const row of rows) stmt.run(...(lead.length + row.length === width ? bindRow(lead, row, params) : bindRow(lead, row)));
        }
      } catch (err) {
        return unavailableWhenBusy(err);
      }
    };
    // runRows without the rows: each record's values go straight into the one parameter array (an array a
    // record built first, then copied, was ~10 % of a complete-call batch's allocation, bench/gc-meter.ts).
    const runRecords = async (
      sql: string,
      lead: readonly Param[],
      names: readonly string[],
      records: ReadonlyArray<Readonly<Record<string, Param>>>,
    ): Promise<void> => {
      try {
        const { stmt, order } = this.statement(sql);
        if (stmt.reader) throw new Error(`runRecords of a statement that answers rows: ${sql.slice(0, 80)}`);
        enter(stmt);
        const n = lead.length;
        const params = new Array<unknown>(n + names.length);
        for (let i = 0; i < n; i++) params[i] = sqlValue(lead[i]);
        const fill = recordFiller(names);
        for (const r of records) {
          fill(r, params, n);
          stmt.run(...(order ? order.map((i) => params[i]) : params));
        }
      } catch (err) {
        return unavailableWhenBusy(err);
      }
    };
    return {
      ...(withRows ? { runRows, runRecords } : {}),
      dialect: 'sqlite',
      all: async <T = Row>(sql: string, params: readonly Param[] = []) => {
        try {
          const { stmt, order } = this.statement(sql);
          enter(stmt);
          return stmt.all(...bind(params, order)) as T[];
        } catch (err) {
          return unavailableWhenBusy(err);
        }
      },
      get: async <T = Row>(sql: string, params: readonly Param[] = []) => {
        try {
          const { stmt, order } = this.statement(sql);
          enter(stmt);
          return (stmt.reader ? stmt.get(...bind(params, order)) : (stmt.run(...bind(params, order)), undefined)) as T | undefined;
        } catch (err) {
          return unavailableWhenBusy(err);
        }
      },
      run: async (sql: string, params: readonly Param[] = []): Promise<RunResult> => {
        try {
          const { stmt, order } = this.statement(sql);
          enter(stmt);
          if (stmt.reader) return { changes: stmt.all(...bind(params, order)).length };
          return { changes: stmt.run(...bind(params, order)).changes };
        } catch (err) {
          return unavailableWhenBusy(err);
        }
      },
      allValues: async (sql: string, params: readonly Param[] = []) => {
        try {
          const { stmt, order } = this.statement(sql, true);
          enter(stmt);
          return stmt.all(...bind(params, order)) as unknown[][];
        } catch (err) {
          return unavailableWhenBusy(err);
        }
      },
      getValues: async (sql: string, params: readonly Param[] = []) => {
        try {
          const { stmt, order } = this.statement(sql, true);
          enter(stmt);
          return stmt.get(...bind(params, order)) as unknown[] | undefined;
        } catch (err) {
          return unavailableWhenBusy(err);
        }
      },
    };
  }

  // Direct executors, used inside a transaction; `outside` for statements outside any.
  private readonly direct = this.executors(() => undefined, true);
  private readonly outside = this.executors((stmt) => this.enter(stmt));

  /*
   * Not async: with no transaction open the executor's promise is answered as it is rather than
   * wrapped in another one (a promise and two microtasks less per statement of a hot lookup).
   */
  all<T = Row>(sql: string, params?: readonly Param[]): Promise<T[]> {
    if (ambientOf(this)) return this.direct.all<T>(sql, params);
    return this.txTail ? this.afterTransaction(() => this.outside.all<T>(sql, params)) : this.outside.all<T>(sql, params);
  }

  get<T = Row>(sql: string, params?: readonly Param[]): Promise<T | undefined> {
    if (ambientOf(this)) return this.direct.get<T>(sql, params);
    return this.txTail ? this.afterTransaction(() => this.outside.get<T>(sql, params)) : this.outside.get<T>(sql, params);
  }

  run(sql: string, params?: readonly Param[]): Promise<RunResult> {
    if (ambientOf(this)) return this.direct.run(sql, params);
    return this.txTail ? this.afterTransaction(() => this.outside.run(sql, params)) : this.outside.run(sql, params);
  }

  allValues(sql: string, params?: readonly Param[]): Promise<unknown[][]> {
    if (ambientOf(this)) return this.direct.allValues(sql, params);
    return this.txTail ? this.afterTransaction(() => this.outside.allValues(sql, params)) : this.outside.allValues(sql, params);
  }

  getValues(sql: string, params?: readonly Param[]): Promise<unknown[] | undefined> {
    if (ambientOf(this)) return this.direct.getValues(sql, params);
    return this.txTail ? this.afterTransaction(() => this.outside.getValues(sql, params)) : this.outside.getValues(sql, params);
  }

  /** A statement outside any transaction, once the open one (and any that follows it) ended: the one connection is theirs until then. */
  private async afterTransaction<T>(statement: () => Promise<T>): Promise<T> {
    while (this.txTail) await this.txTail;
    return statement();
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    if (ambientOf(this)) return joinAmbient(this, fn);
    while (this.txTail) await this.txTail;
    let release!: () => void;
    this.txTail = new Promise<void>((resolve) => (release = resolve));
    try {
      SqliteDatabase.endSharedReads();
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
        // Another connection of the process may have opened a shared read meanwhile: its next read sees this commit.
        SqliteDatabase.endSharedReads();
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
    SqliteDatabase.endSharedReads();
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
    this.endSharedRead();
    if (this.raw.open) this.raw.close();
  }

  stats() {
    return { total: 1, idle: this.txTail ? 0 : 1, waiting: 0 };
  }
}
