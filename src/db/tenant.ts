import type { Param, Queryable, Row, RunResult } from './types.js';

/**
 * The only way a module repository reaches tenant data: every statement gets
 * the account id as `$1`, and a statement that does not mention `account_id`
 * and `$1` is refused before it reaches the database. A repository therefore
 * cannot forget the tenant scope (PRODUCT.md §4, isolation).
 */
export interface TenantQueries {
  readonly accountId: number;
  readonly dialect: Queryable['dialect'];
  all<T = Row>(sql: string, params?: readonly Param[]): Promise<T[]>;
  get<T = Row>(sql: string, params?: readonly Param[]): Promise<T | undefined>;
  run(sql: string, params?: readonly Param[]): Promise<RunResult>;
  allValues(sql: string, params?: readonly Param[]): Promise<unknown[][]>;
  getValues(sql: string, params?: readonly Param[]): Promise<unknown[] | undefined>;
  /** `run(sql, row)` for each row, in order (`Queryable.runRows` where the executor has it, else `run` per row). */
  runRows(sql: string, rows: ReadonlyArray<readonly Param[]>): Promise<void>;
  /** `runRows` with each row the values of `names` in a record (`Queryable.runRecords` where the executor has it). */
  runRecords(sql: string, names: readonly string[], records: ReadonlyArray<Readonly<Record<string, Param>>>): Promise<void>;
  /** Whether `runRows` is the executor's own loop (SQLite's transaction: no await per row), not a `run` per row. */
  readonly rowLoop: boolean;
  /**
   * The one way past the guard, for a statement that touches no tenant data
   * (a planner setting, a constant): it runs as written, its parameters as
   * given (no account id added), and answers its rows. `reason` says why the
   * statement needs no account scope: it is there for the reader, and must
   * not be empty.
   */
  untenanted<T = Row>(reason: string, sql: string, params?: readonly Param[]): Promise<T[]>;
}

const checked = new Set<string>();

function assertScoped(sql: string): void {
  if (checked.has(sql)) return;
  if (!/\baccount_id\b/.test(sql) || !/\$1(?!\d)/.test(sql)) {
    throw new Error(`tenant query without account_id = $1: ${sql.slice(0, 80)}`);
  }
  checked.add(sql);
}

export function tenant(db: Queryable, accountId: number): TenantQueries {
  return {
    accountId,
    dialect: db.dialect,
    all: (sql, params = []) => (assertScoped(sql), db.all(sql, [accountId, ...params])),
    get: (sql, params = []) => (assertScoped(sql), db.get(sql, [accountId, ...params])),
    run: (sql, params = []) => (assertScoped(sql), db.run(sql, [accountId, ...params])),
    allValues: (sql, params = []) => (assertScoped(sql), db.allValues(sql, [accountId, ...params])),
    getValues: (sql, params = []) => (assertScoped(sql), db.getValues(sql, [accountId, ...params])),
    rowLoop: db.runRows !== undefined,
    runRows: async (sql, rows) => {
      assertScoped(sql);
      if (db.runRows) return db.runRows(sql, [accountId], rows);
      for (const row of rows) await db.run(sql, [accountId, ...row]);
    },
    runRecords: async (sql, names, records) => {
      assertScoped(sql);
      if (db.runRecords) return db.runRecords(sql, [accountId], names, records);
      for (const r of records) await db.run(sql, [accountId, ...names.map((n) => r[n])]);
    },
    untenanted: async (reason, sql, params = []) => {
      if (reason.trim() === '') throw new Error(`untenanted statement without a reason: ${sql.slice(0, 80)}`);
      return db.all(sql, params);
    },
  };
}
