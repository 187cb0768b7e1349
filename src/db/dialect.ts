import type { TenantQueries } from './tenant.js';
import type { Database, Dialect, Param, Queryable } from './types.js';

/**
 * Everything that differs between the two backends, by name: one object per
 * dialect, reached from any connection, transaction or tenant handle with
 * `dialectOf(q)`. Code elsewhere asks for a capability and never compares
 * dialects, so a third backend (or a change of one) is written here only.
 */
export interface DialectOps {
  readonly name: Dialect;

  /** Column types that differ in DDL (migrations, through `columnTypes`). */
  readonly columnTypes: {
    /** An auto-assigned numeric primary key, unique across the service. */
    autoId: string;
    /** Floating-point seconds and averages. */
    real: string;
    /** Binary data (a Buffer parameter; read back as a Buffer). */
    bytes: string;
  };

  /**
   * Appended to a SELECT to lock its rows until the transaction ends:
   * ` FOR UPDATE`, or nothing on SQLite (a write transaction there already
   * excludes every other writer).
   */
  readonly forUpdate: string;

  /**
   * Appended to a SELECT that picks work items: locks them and skips the
   * rows another transaction holds (` FOR UPDATE SKIP LOCKED`), so nodes
   * claim disjoint rows; nothing on SQLite (one writer at a time).
   */
  readonly forUpdateSkipLocked: string;

  /**
   * Takes a lock held until the transaction ends, keyed by one number or two
   * (`pg_advisory_xact_lock`; any constant names a lock, every node uses the
   * same one). SQLite: nothing, its write transactions run one at a time.
   */
  transactionLock(tx: Queryable, key: readonly [number] | readonly [number, number]): Promise<void>;

  /**
   * One SQL expression joining integer expressions into a text "12,0,-3"
   * (read back by analysis' addPacked). Every expression must be non-NULL:
   * PostgreSQL's concat_ws skips NULLs, which would shift every later value.
   */
  packedIntegers(exprs: readonly string[]): string;

  /**
   * A statement that makes the planner plan each prepared statement with its
   * parameter values until the transaction ends (PostgreSQL otherwise settles
   * on a generic plan that cannot know an array's size); null where there is
   * no such setting (SQLite). It reads no table.
   */
  readonly customPlansUntilCommit: string | null;

  /**
   * The statement that ends `customPlansUntilCommit` before the transaction
   * does: the planner's default again (prepared statements may use their
   * cached generic plans); null where there is none. It reads no table.
   */
  readonly customPlansEnd: string | null;

  /**
   * A statement setting a custom setting until the transaction ends (`$1`
   * its name, `$2` its value), read by triggers (the audit trail's
   * maintenance switch); null where there is neither (SQLite).
   */
  readonly transactionSetting: string | null;

  /**
   * Before a bulk load: a page cache of 256 MB on SQLite (the default 2 MB thrashes on index pages)
   * and checkpoints every 1 GB of WAL instead of every 4 MB; nothing on PostgreSQL.
   */
  prepareBulkLoad(db: Queryable): Promise<void>;

  /** After a bulk load into `tables`: fresh planner statistics (SQLite analyses the whole file, after checkpointing as usual again). */
  analyzeAfterBulkLoad(db: Database, tables: readonly string[]): Promise<void>;

  /**
   * Fresh planner statistics of one table that a live write just grew
   * (PostgreSQL `ANALYZE`, a sample; SQLite nothing: its planner probes a
   * unique index for an IN list without statistics). PostgreSQL otherwise
   * plans with what it saw before (an empty table: a semi-join then
   * compares every row of the list with every value); run it outside a
   * transaction (`db.independent()`), as its lock conflicts with itself.
   */
  refreshPlannerStatistics(t: TenantQueries, table: string): Promise<void>;

  /** Rows per multi-row INSERT in bulk inserts (seeding contacts). */
  readonly bulkInsertRows: number;

  /**
   * A JSON array parameter (`$n`, objects with these keys) as a table `alias`
   * (in a FROM clause): one statement for many rows of input instead of one
   * per row.
   */
  jsonRows(n: number, alias: string, columns: ReadonlyArray<readonly [string, 'bigint' | 'integer' | 'text']>): string;

  /** `<column> IN <the values>` with all the values as the one parameter `$n`. */
  inList(column: string, n: number, values: readonly (string | number)[]): { sql: string; param: Param };

  /**
   * A FROM item `alias`: the rows of `table` of the account (`$1`) whose
   * `column` is one of the values (parameter `$n`), each row once, found by one
   * index probe per value whatever the planner's statistics say.
   * PostgreSQL: a LATERAL subquery per value that the planner cannot
   * flatten (OFFSET 0). `column IN (SELECT unnest(…))` under custom plans
   * (the ingest's) became a hash join over every row of the account
   * whenever the statistics were older than the table's growth: a new
   * account's event_ids with 50,000 rows and no ANALYZE yet, 18 ms a batch
   * against 1.8 ms. SQLite: the IN list, which its planner always probes.
   */
  probeRows(table: string, alias: string, column: string, n: number, values: readonly (string | number)[]): { sql: string; param: Param };

  /**
   * Inserts rows (objects keyed by column name) into `table` with the
   * account id as $1, ending each insert with `conflict` (an ON CONFLICT clause).
   */
  insertRows(t: TenantQueries, table: string, columns: readonly BulkColumn[], rows: readonly Record<string, Param>[], conflict: string): Promise<void>;

  /**
   * Adds rows of deltas to roll-up tables and sets change marks (behind
   * `writeRollup` in rollup-write.ts, the only caller): each table's `rows`
   * hold the key columns, then the sum columns, then the max columns, in
   * order, no two sharing a key; each mark table gets `mark` on `values`.
   */
  writeRollup(t: TenantQueries, tables: readonly RollupRows[], marks: readonly MarkRows[]): Promise<void>;
}

/** Rows of deltas for one roll-up table. */
export interface RollupRows {
  readonly table: string;
  readonly cols: AddColumns;
  readonly rows: ReadonlyArray<readonly Param[]>;
}

/** One new mark for some days (hours) of a mark table. */
export interface MarkRows {
  readonly table: string;
  readonly column: string;
  /** Distinct, sorted. */
  readonly values: readonly number[];
  readonly mark: number;
}

/** The columns of a roll-up table that `writeRollup` writes. */
export interface AddColumns {
  readonly key: readonly string[];
  /** Added to the stored value. */
  readonly sum: readonly string[];
  /** The larger of the stored and the new value is kept; NULL leaves the stored one. */
  readonly max: readonly string[];
}

function addSets(table: string, cols: AddColumns): string {
  return [
    ...cols.sum.map((c) => `${c} = ${table}.${c} + excluded.${c}`),
    ...cols.max.map(
      (c) =>
        `${c} = CASE WHEN excluded.${c} IS NULL THEN ${table}.${c} WHEN ${table}.${c} IS NULL OR excluded.${c} > ${table}.${c} THEN excluded.${c} ELSE ${table}.${c} END`,
    ),
  ].join(', ');
}

/** Statement texts by table, columns and row count (a bounded set: a few tables, two chunk sizes each at most). */
const addStatements = new Map<string, string>();
function addStatement(id: string, make: () => string): string {
  let sql = addStatements.get(id);
  if (!sql) addStatements.set(id, (sql = make()));
  return sql;
}

/**
 * SQLite: WAL pages between automatic checkpoints (SQLite's default: 1,000,
 * 4 MB). A complete-call ingest batch dirties a few hundred pages (the
 * agent-state history alone one leaf page per agent), so the default
 * checkpointed every few batches, writing the same hot pages to the file
 * again each time and syncing it: 10,000 pages (40 MB of WAL at most) made
 * complete-call ingest 12 % faster (1.02–1.15 × in 4 alternated rounds,
 * bench/ingest-calls.ts), for a WAL file up to 40 MB. Durability is
 * unchanged: commits are in the WAL either way.
 */
export const SQLITE_WAL_AUTOCHECKPOINT = 10_000;

const SQLITE_ADD_ROWS = 50;
/** SQLite: marked days (hours) per statement. */
const SQLITE_MARKS = 16;
/**
 * PostgreSQL: rows per statement of arrays. One statement per table per
 * flush in practice; bounded so a bulk load's parameters stay a few MB.
 */
const PG_ADD_ROWS = 5000;

export interface BulkColumn {
  name: string;
  /** PostgreSQL type for jsonb_to_recordset. */
  pg: 'bigint' | 'text' | 'double precision' | 'integer';
}

const sqlite: DialectOps = {
  name: 'sqlite',
  columnTypes: { autoId: 'INTEGER PRIMARY KEY AUTOINCREMENT', real: 'REAL', bytes: 'BLOB' },
  forUpdate: '',
  forUpdateSkipLocked: '',
  transactionLock: async () => undefined,
  packedIntegers: (exprs) => `printf('${exprs.map(() => '%d').join(',')}', ${exprs.join(', ')})`,
  customPlansUntilCommit: null,
  customPlansEnd: null,
  transactionSetting: null,
  // A WAL of up to 1 GB between checkpoints: each 20,000-call batch dirties
  // pages all over the caller index, and checkpointing after every batch wrote
  // them to the database file again each time (1 M calls: 2.6 → 1.7 GB written,
  // 170 → 143 s at load 8). Per connection; put back once the load is done.
  async prepareBulkLoad(db) {
    await db.run('PRAGMA cache_size = -262144');
    await db.run('PRAGMA wal_autocheckpoint = 262144');
  },
  refreshPlannerStatistics: async () => undefined,
  async analyzeAfterBulkLoad(db) {
    await db.run(`PRAGMA wal_autocheckpoint = ${SQLITE_WAL_AUTOCHECKPOINT}`);
    await db.exec('PRAGMA wal_checkpoint(TRUNCATE); ANALYZE');
  },
  bulkInsertRows: 500,
  jsonRows: (n, alias, columns) => `(SELECT ${columns.map(([c]) => `value ->> '${c}' AS ${c}`).join(', ')} FROM json_each($${n})) AS ${alias}`,
  inList: (column, n, values) => ({ sql: `${column} IN (SELECT value FROM json_each($${n}))`, param: JSON.stringify(values) }),
  probeRows: (table, alias, column, n, values) => ({
    sql: `(SELECT * FROM ${table} WHERE account_id = $1 AND ${column} IN (SELECT value FROM json_each($${n}))) AS ${alias}`,
    param: JSON.stringify(values),
  }),
  // One cached prepared statement per row: in process, a few microseconds each, run in one loop (runRows).
  async insertRows(t, table, columns, rows, conflict) {
    const names = columns.map((c) => c.name);
    const sql = `INSERT INTO ${table} (account_id, ${names.join(', ')}) VALUES ($1, ${names.map((_, i) => `$${i + 2}`).join(', ')}) ${conflict}`;
    await t.runRecords(sql, names, rows);
  },
  // In a transaction (t.rowLoop): one row a statement, the rows in one runRows loop. Measured
  // against the 50-row VALUES below (bench/ingest-statements.ts, SQLite, 4 alternated pairs): CPU a
  // complete-call batch 15.55 → 14.0 ms (median): no parameter array of 1,500 values built and bound
  // per statement, and the rows are already arrays in column order. Elsewhere (a `run` per row
  // would await each): multi-row VALUES, 50 rows a statement, the plain path (test/integration/
  // rollup-rows.test.ts compares the two). Marks: at most 16 days a statement (a bounded set of
  // statement texts).
  async writeRollup(t, tables, marks) {
    for (const { table, cols, rows } of tables) {
      const all = [...cols.key, ...cols.sum, ...cols.max];
      const id = `${table}|${all.join(',')}|`;
      if (t.rowLoop) {
        const sql = addStatement(
          `${id}row`,
          () =>
            `INSERT INTO ${table} (account_id, ${all.join(', ')}) VALUES ($1, ${all.map((_, c) => `$${2 + c}`).join(', ')}) ON CONFLICT (account_id, ${cols.key.join(', ')}) DO UPDATE SET ${addSets(table, cols)}`,
        );
        await t.runRows(sql, rows);
        continue;
      }
      for (let i = 0; i < rows.length; i += SQLITE_ADD_ROWS) {
        const n = Math.min(SQLITE_ADD_ROWS, rows.length - i);
        const sql = addStatement(id + n, () => {
          const values = Array.from({ length: n }, (_, r) => `($1, ${all.map((_, c) => `$${2 + r * all.length + c}`).join(', ')})`);
          return `INSERT INTO ${table} (account_id, ${all.join(', ')}) VALUES ${values.join(', ')} ON CONFLICT (account_id, ${cols.key.join(', ')}) DO UPDATE SET ${addSets(table, cols)}`;
        });
        // A loop, not rows.slice(…).flat(): flat() took about 5 µs a row (1.6 ms for 300 rows of 22 values against 0.1 ms), several ms of a complete-call batch.
        const params: Param[] = [];
        for (let r = i; r < i + n; r++) for (const v of rows[r]!) params.push(v);
        await t.run(sql, params);
      }
    }
    for (const m of marks) {
      for (let i = 0; i < m.values.length; i += SQLITE_MARKS) {
        const chunk = m.values.slice(i, i + SQLITE_MARKS);
        const sql = addStatement(`${m.table}|mark|${chunk.length}`, () => {
          const values = chunk.map((_, j) => `($1, $${j + 3}, $2)`).join(', ');
          return `INSERT INTO ${m.table} (account_id, ${m.column}, version) VALUES ${values} ON CONFLICT (account_id, ${m.column}) DO UPDATE SET version = excluded.version`;
        });
        await t.run(sql, [m.mark, ...chunk]);
      }
    }
  },
};

const postgres: DialectOps = {
  name: 'postgres',
  columnTypes: { autoId: 'BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY', real: 'DOUBLE PRECISION', bytes: 'BYTEA' },
  forUpdate: ' FOR UPDATE',
  forUpdateSkipLocked: ' FOR UPDATE SKIP LOCKED',
  async transactionLock(tx, key) {
    await tx.get(key.length === 1 ? 'SELECT pg_advisory_xact_lock($1)' : 'SELECT pg_advisory_xact_lock($1, $2)', key);
  },
  packedIntegers: (exprs) => `concat_ws(',', ${exprs.join(', ')})`,
  customPlansUntilCommit: "SELECT set_config('plan_cache_mode', 'force_custom_plan', true)",
  customPlansEnd: 'SET LOCAL plan_cache_mode TO DEFAULT',
  transactionSetting: 'SELECT set_config($1, $2, true)',
  prepareBulkLoad: async () => undefined,
  async analyzeAfterBulkLoad(db, tables) {
    await db.exec(tables.map((t) => `ANALYZE ${t}`).join('; '));
  },
  async refreshPlannerStatistics(t, table) {
    await t.untenanted('planner statistics of the whole table: reads a sample, writes no tenant data', `ANALYZE ${table}`);
  },
  bulkInsertRows: 1000,
  jsonRows: (n, alias, columns) => `jsonb_to_recordset(CAST($${n} AS jsonb)) AS ${alias}(${columns.map(([c, type]) => `${c} ${type}`).join(', ')})`,
  inList(column, n, values) {
    // Not `= ANY($n)`: once PostgreSQL switches a prepared statement to its generic
    // plan it scans the whole table for ANY over an array of unknown size; a
    // semi-join over unnest() keeps one index probe per value.
    // An empty list has no element to tell the type by: compared as text, any column's type matches (and no row does).
    if (values.length === 0) return { sql: `${column}::text IN (SELECT unnest($${n}::text[]))`, param: [] as unknown as Param };
    const type = typeof values[0] === 'number' ? 'bigint[]' : 'text[]';
    return { sql: `${column} IN (SELECT unnest($${n}::${type}))`, param: values as unknown as Param };
  },
  probeRows(table, alias, column, n, values) {
    // An empty list has no element to tell the type by, and `column = text` fails on a number column: no probe, no row.
    if (values.length === 0)
      return { sql: `(SELECT * FROM ${table} WHERE account_id = $1 AND cardinality($${n}::text[]) > 0) AS ${alias}`, param: [] as unknown as Param };
    const type = typeof values[0] === 'number' ? 'bigint[]' : 'text[]';
    return {
      sql: `unnest($${n}::${type}) AS ${alias}_v(v) CROSS JOIN LATERAL (SELECT * FROM ${table} WHERE account_id = $1 AND ${column} = ${alias}_v.v OFFSET 0) AS ${alias}`,
      // Each value once: a value listed twice would find its rows twice (an IN list finds them once).
      param: [...new Set(values)] as unknown as Param,
    };
  },
  // One statement per table per batch: each round trip costs ~0.1 ms.
  async insertRows(t, table, columns, rows, conflict) {
    const names = columns.map((c) => c.name);
    const sql = `INSERT INTO ${table} (account_id, ${names.join(', ')})
      SELECT $1, ${names.map((c) => `x.${c}`).join(', ')}
      FROM jsonb_to_recordset($2::jsonb) AS x(${columns.map((c) => `${c.name} ${c.pg}`).join(', ')}) ${conflict}`;
    await t.run(sql, [JSON.stringify(rows)]);
  },
  // One array per column, unnested: one round trip and one plan for thousands
  // of rows (50-row VALUES statements were a third of a bulk load's time in
  // round trips and planning). Numbers travel as float8[], which the insert
  // casts to each column's type; the values are integers where the column is.
  // Every table and mark table of one write in ONE statement (data-modifying
  // WITH clauses): a complete-call batch wrote 5 report and 6 analysis
  // statements, a round trip each inside the account's lock, about a third
  // of the batch's statements (bench/ingest-calls.ts, docs/benchmarks.md).
  // A bulk load's larger writes go 5,000 rows a statement, table by table.
  async writeRollup(t, tables, marks) {
    if (tables.some((w) => w.rows.length > PG_ADD_ROWS)) {
      for (const w of tables) {
        for (let i = 0; i < w.rows.length; i += PG_ADD_ROWS) await pgWriteRollup(t, [{ ...w, rows: w.rows.slice(i, i + PG_ADD_ROWS) }], []);
      }
      await pgWriteRollup(t, [], marks);
      return;
    }
    await pgWriteRollup(t, tables, marks);
  },
};

/** PostgreSQL: the tables' rows added and the marks set by one statement. */
async function pgWriteRollup(t: TenantQueries, tables: readonly RollupRows[], marks: readonly MarkRows[]): Promise<void> {
  const params: Param[] = [];
  const parts: string[] = [];
  const id: string[] = [];
  for (const { table, cols, rows } of tables) {
    if (rows.length === 0) continue;
    const all = [...cols.key, ...cols.sum, ...cols.max];
    const types = all.map((_, c) => (rows.some((r) => typeof r[c] === 'string') ? 'text[]' : 'float8[]'));
    const first = params.length + 2;
    for (let c = 0; c < all.length; c++) params.push(rows.map((r) => r[c]!) as unknown as Param);
    id.push(`${table}:${all.join(',')}:${types.join(',')}`);
    parts.push(
      `INSERT INTO ${table} (account_id, ${all.join(', ')}) SELECT $1, * FROM unnest(${types.map((type, c) => `$${first + c}::${type}`).join(', ')}) ` +
        `ON CONFLICT (account_id, ${cols.key.join(', ')}) DO UPDATE SET ${addSets(table, cols)}`,
    );
  }
  for (const m of marks) {
    if (m.values.length === 0) continue;
    const n = params.length + 2;
    params.push(m.values as unknown as Param, m.mark);
    id.push(`${m.table}:mark`);
    parts.push(
      `INSERT INTO ${m.table} (account_id, ${m.column}, version) SELECT $1, u, $${n + 1}::bigint FROM unnest($${n}::bigint[]) AS u ` +
        `ON CONFLICT (account_id, ${m.column}) DO UPDATE SET version = excluded.version`,
    );
  }
  if (parts.length === 0) return;
  // Statement texts are cached by their shape (tables, columns, types): a bounded set.
  const sql = addStatement(`pg|${id.join('|')}`, () => (parts.length === 1 ? parts[0]! : `WITH ${parts.map((p, i) => `w${i} AS (${p})`).join(', ')} SELECT 1`));
  await t.run(sql, params);
}

const BY_NAME: Readonly<Record<Dialect, DialectOps>> = { sqlite, postgres };

/** The capabilities of a dialect, by name or of a connection / transaction / tenant handle. */
export function dialectOf(q: Dialect | { readonly dialect: Dialect }): DialectOps {
  return BY_NAME[typeof q === 'string' ? q : q.dialect];
}
