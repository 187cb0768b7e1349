import type { Database } from '../../src/db/types.js';

const STATEMENTS = new Set(['all', 'get', 'run', 'allValues', 'getValues', 'exec']);

/**
 * The real database with a count of the statements sent through it: tests
 * that must show a request answered "without a database read" compare the
 * count before and after. Everything else goes to the database as it is.
 */
export function countingDatabase(db: Database): { db: Database; statements: () => number } {
  let count = 0;
  const wrapped = new Proxy(db, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (STATEMENTS.has(prop as string)) {
        return (...args: unknown[]) => {
          count++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
  return { db: wrapped, statements: () => count };
}
