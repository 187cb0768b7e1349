import { createHash } from 'node:crypto';
import type { Database } from '../../../src/db/types.js';

/**
 * Assertions shared by the reliability suites: what a well-formed answer is,
 * and a fingerprint of the whole database to prove a failed request changed
 * nothing.
 */

/** Text that must never reach a client: stack frames, SQL, driver and engine messages. */
const INTERNALS = [
  /\bat [\w$.<>]+ \(/, // stack frame
  /\.(ts|js|mjs|cjs):\d+/,
  /node_modules/,
  /\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|CREATE TABLE)\b/,
  /SQLITE_|sqlite|better-sqlite3/i,
  /\bpg_|relation "|violates .* constraint|syntax error at or near|duplicate key value/i,
  /TypeError|ReferenceError|RangeError|Cannot read propert/,
];

/** HTTP statuses an answer may carry (PRODUCT.md §3): never 5xx for bad input. */
const ALLOWED_HTTP = new Set([200, 401, 404, 413, 429]);

/** Answers why the answer is not well-formed, or undefined when it is. */
export function envelopeProblem(httpStatus: number, raw: string): string | undefined {
  if (!ALLOWED_HTTP.has(httpStatus)) return `HTTP ${httpStatus}`;
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return 'body is not JSON';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body is not an object';
  const b = body as Record<string, unknown>;
  for (const re of INTERNALS) if (re.test(raw)) return `internal text leaked (${re})`;
  if (b.status === 'success') {
    if (b.code !== 200 || httpStatus !== 200) return 'success without code 200 / HTTP 200';
    return undefined;
  }
  if (b.status !== 'error') return `status is ${JSON.stringify(b.status)}`;
  if (!Number.isInteger(b.code)) return 'error code is not an integer';
  if (typeof b.message !== 'string' || b.message === '') return 'error message missing';
  if (httpStatus !== 200 && b.code !== httpStatus && !(httpStatus === 401 && b.code === 1014)) return `HTTP ${httpStatus} with code ${String(b.code)}`;
  return undefined;
}

/** Tables whose rows change without any request (lock expiry bookkeeping). */
const VOLATILE = new Set(['locks']);

export async function tableNames(db: Database): Promise<string[]> {
  const rows =
    db.dialect === 'sqlite'
      ? await db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      : await db.all<{ name: string }>('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()');
  return rows
    .map((r) => r.name)
    .filter((n) => !VOLATILE.has(n))
    .sort();
}

/**
 * A fingerprint per table (row count and a hash of the sorted rows), optionally
 * only the rows of one account. Small test databases only: it reads everything.
 */
export async function fingerprint(db: Database, accountId?: number): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of await tableNames(db)) {
    let rows: Array<Record<string, unknown>>;
    if (accountId === undefined) {
      rows = await db.all(`SELECT * FROM ${table}`);
    } else {
      const cols = await columnsOf(db, table);
      const key = cols.includes('account_id') ? 'account_id' : table === 'accounts' ? 'id' : undefined;
      if (!key) continue;
      rows = await db.all(`SELECT * FROM ${table} WHERE ${key} = $1`, [accountId]);
    }
    const lines = rows.map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).sort();
    out[table] = `${rows.length}:${createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16)}`;
  }
  return out;
}

const columnCache = new WeakMap<Database, Map<string, string[]>>();
async function columnsOf(db: Database, table: string): Promise<string[]> {
  let m = columnCache.get(db);
  if (!m) columnCache.set(db, (m = new Map()));
  let cols = m.get(table);
  if (!cols) {
    const rows =
      db.dialect === 'sqlite'
        ? await db.all<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`)
        : await db.all<{ name: string }>(
            'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1',
            [table],
          );
    cols = rows.map((r) => r.name);
    m.set(table, cols);
  }
  return cols;
}

/** The tables whose fingerprint differs. */
export function changedTables(before: Record<string, string>, after: Record<string, string>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => before[k] !== after[k]);
}
