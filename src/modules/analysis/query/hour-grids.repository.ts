import type { Queryable } from '../../../db/types.js';
import { tenant, type TenantQueries } from '../../../db/tenant.js';
import type { Dim } from '../rollup/counters.js';

/** One UTC day of the hourly roll-up summed over directions (migration 130; the value's layout: answer/hour-grid-codec.ts). */
export interface StoredHourGrid {
  utcDay: number;
  /** The day's change mark (analysis_versions) read before the rows the grid was summed from. */
  token: number;
  keys: string[];
  grid: Buffer;
}

/** Rows written per statement: each holds a few hundred kB, and SQLite takes at most 32,766 parameters. */
const ROWS_PER_STATEMENT = 16;

/** The SQL of analysis_hour_grids; nothing else. */
export class HourGridRepository {
  private readonly t: TenantQueries;

  constructor(db: Queryable, accountId: number) {
    this.t = tenant(db, accountId);
  }

  /** The stored grids of the UTC days fromDay…toDay for one dimension and ghost threshold (a day never stored has none). */
  async read(dim: Dim, ghost: number, fromDay: number, toDay: number): Promise<StoredHourGrid[]> {
    // PostgreSQL sends bytea as hex text: base64 is a third shorter, and a month by agent (9 MB) read ~25 ms sooner.
    const grid = this.t.dialect === 'postgres' ? "encode(grid, 'base64')" : 'grid';
    const rows = await this.t.allValues(
      `SELECT utc_day, token, keys, ${grid} FROM analysis_hour_grids WHERE account_id = $1 AND dim = $2 AND ghost = $3 AND utc_day >= $4 AND utc_day <= $5`,
      [dim, ghost, fromDay, toDay],
    );
    return rows.map((r) => ({
      utcDay: Number(r[0]),
      token: Number(r[1]),
      keys: JSON.parse(String(r[2])) as string[],
      grid: typeof r[3] === 'string' ? Buffer.from(r[3], 'base64') : (r[3] as Buffer),
    }));
  }

  /** The tokens of the stored grids of fromDay…toDay, without the grids (the job compares them with the marks). */
  async tokens(dim: Dim, ghost: number, fromDay: number, toDay: number): Promise<Map<number, number>> {
    const rows = await this.t.allValues(
      'SELECT utc_day, token FROM analysis_hour_grids WHERE account_id = $1 AND dim = $2 AND ghost = $3 AND utc_day >= $4 AND utc_day <= $5',
      [dim, ghost, fromDay, toDay],
    );
    return new Map(rows.map((r) => [Number(r[0]), Number(r[1])]));
  }

  /** Writes (or replaces) grids; the last writer wins, and a reader checks the token anyway. */
  async write(dim: Dim, ghost: number, grids: StoredHourGrid[]): Promise<void> {
    for (let i = 0; i < grids.length; i += ROWS_PER_STATEMENT) {
      const chunk = grids.slice(i, i + ROWS_PER_STATEMENT);
      const params: (string | number | Buffer)[] = [dim, ghost];
      const values = chunk.map((g) => {
        params.push(g.utcDay, g.token, JSON.stringify(g.keys), g.grid);
        const n = params.length + 1;
        return `($1, $2, $3, $${n - 3}, $${n - 2}, $${n - 1}, $${n})`;
      });
      await this.t.run(
        `INSERT INTO analysis_hour_grids (account_id, dim, ghost, utc_day, token, keys, grid) VALUES ${values.join(', ')}
         ON CONFLICT (account_id, dim, ghost, utc_day) DO UPDATE SET token = excluded.token, keys = excluded.keys, grid = excluded.grid`,
        params,
      );
    }
  }
}

/** Every account with analysis roll-ups (the stored-hours job's work list; no tenant scope: it is across accounts by design). */
export async function accountsWithRollups(db: Queryable): Promise<number[]> {
  const rows = await db.allValues('SELECT account_id FROM analysis_rollup_state ORDER BY account_id');
  return rows.map((r) => Number(r[0]));
}
