import type { Database, Queryable } from '../src/db/types.js';

const STATEMENTS = new Set(['all', 'get', 'run', 'allValues', 'getValues', 'exec', 'runRows', 'runRecords']);

/** Per statement text: how many times it ran and the time spent in it (ms). */
export type StatementLog = Map<string, { n: number; ms: number }>;

/**
 * The database with every statement it runs (transactions' included) counted
 * and timed by its text: `--statements` of bench/campaign-tick.ts reads it
 * to show what one tick asks the database.
 */
export function loggingDatabase(db: Database): { db: Database; log: StatementLog } {
  const log: StatementLog = new Map();
  const wrap = <T extends Queryable>(q: T): T =>
    new Proxy(q, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        const fn = value as (...a: unknown[]) => unknown;
        if (STATEMENTS.has(prop as string)) {
          return async (...args: unknown[]) => {
            const t0 = performance.now();
            try {
              return await fn.apply(target, args);
            } finally {
              const key = String(args[0]).replace(/\s+/g, ' ').slice(0, 140);
              const e = log.get(key) ?? { n: 0, ms: 0 };
              // runRows (sql, lead, rows): one statement run per row.
              e.n += prop === 'runRows' ? (args[2] as unknown[]).length : prop === 'runRecords' ? (args[3] as unknown[]).length : 1;
              e.ms += performance.now() - t0;
              log.set(key, e);
            }
          };
        }
        if (prop === 'transaction') {
          return (f: (tx: Queryable) => Promise<unknown>) => fn.call(target, (tx: Queryable) => f(wrap(tx)));
        }
        if (prop === 'independent') return () => wrap(fn.call(target) as Queryable);
        return fn.bind(target);
      },
    });
  return { db: wrap(db), log };
}
