/**
 * Whether this process may compile code from strings (`new Function`): a
 * node started with `--disallow-code-generation-from-strings` (a common
 * hardening flag) may not. The analysis writers made for a field list
 * (modules/analysis/wire/counters-writer.ts), its cell operations
 * (answer/hour-grid-codec.ts) and SQLite's record fillers (db/sqlite.ts)
 * are compiled when it may, and have a plain version, equal in effect,
 * used when it may not. Asked once, at the first use (the analysis service
 * asks when it is built), never at import.
 */
let allowed: boolean | undefined;

export function mayGenerateCode(): boolean {
  if (allowed === undefined) {
    try {
      allowed = (new Function('return 1') as () => number)() === 1;
    } catch {
      allowed = false;
    }
  }
  return allowed;
}
