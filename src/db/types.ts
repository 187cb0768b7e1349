export type Dialect = 'sqlite' | 'postgres';
export type Row = Record<string, unknown>;
export type Param = string | number | bigint | boolean | null | undefined | Buffer;

export interface RunResult {
  changes: number;
}

/**
 * What a repository may do with a connection. SQL is written once, with
 * PostgreSQL-style `$1…$n` placeholders; the SQLite backend rewrites them.
 * Both backends reuse prepared statements (SQLite: statement cache;
 * PostgreSQL: named prepared statements per pooled connection).
 */
export interface Queryable {
  readonly dialect: Dialect;
  all<T = Row>(sql: string, params?: readonly Param[]): Promise<T[]>;
  get<T = Row>(sql: string, params?: readonly Param[]): Promise<T | undefined>;
  run(sql: string, params?: readonly Param[]): Promise<RunResult>;
  /** Each row as an array of its column values in select order: no object per row (large reads). */
  allValues(sql: string, params?: readonly Param[]): Promise<unknown[][]>;
  /**
   * The first row as an array of its column values, or undefined: a one-row
   * lookup (SQLite stops at the row instead of stepping on to the end and
   * wrapping it in an outer array: ~0.5 µs of a hot lookup).
   */
  getValues(sql: string, params?: readonly Param[]): Promise<unknown[] | undefined>;
  /**
   * Runs a statement that answers no rows once per entry of `rows`, in order,
   * each time with the parameters `lead` followed by that entry's. Optional:
   * SQLite's transaction executor has it (one prepared statement in one
   * synchronous loop: no promise, no parameter copies per row); without it
   * (PostgreSQL, wrappers, a connection outside a transaction) `tenant`'s
   * `runRows` runs `run` once per row, the plain path.
   */
  runRows?(sql: string, lead: readonly Param[], rows: ReadonlyArray<readonly Param[]>): Promise<void>;
  /**
   * `runRows` of records: each run's parameters are `lead` followed by the
   * record's values of `names`, in that order, read as the statement is run
   * (no array per record built first). Optional, as `runRows`.
   */
  runRecords?(sql: string, lead: readonly Param[], names: readonly string[], records: ReadonlyArray<Readonly<Record<string, Param>>>): Promise<void>;
}

export type Listener = (payload: string) => void;

export interface Database extends Queryable {
  /** Runs `fn` in one transaction; it commits when `fn` resolves and rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` in the ambient transaction (db/ambient.ts): every statement of
   * this database in `fn`'s async context — `transaction(...)` (as a
   * savepoint), `get`, `run`, … — runs in one transaction that commits when
   * `fn` resolves. NOTIFY waits for the commit.
   */
  ambient<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Where statements go that other nodes must see at once, even inside the
   * ambient transaction (the 1501 locks): PostgreSQL, the pool; SQLite, the
   * one connection (its transactions run one at a time anyway).
   */
  independent(): Queryable;
  /** Several statements at once, no parameters (DDL). */
  exec(sql: string): Promise<void>;
  /**
   * Cross-node notification. PostgreSQL: LISTEN/NOTIFY; SQLite: in process
   * (one process serves an embedded database).
   */
  notify(channel: string, payload: string): Promise<void>;
  listen(channel: string, listener: Listener): Promise<() => void>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Pool statistics for /metrics. */
  stats(): { total: number; idle: number; waiting: number };
}

/** A database failure the service cannot fix (connection refused, server gone): answered 503 / 1010. */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super('database unavailable', { cause });
    this.name = 'DatabaseUnavailableError';
  }
}
