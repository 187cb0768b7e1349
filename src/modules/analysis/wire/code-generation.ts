/**
 * Whether this process may compile code from strings (`new Function`): a
 * node started with `--disallow-code-generation-from-strings` (a common
 * hardening flag) may not. The writers made for a field list
 * (counters-writer.ts) and the cell operations (answer/hour-grid-codec.ts)
 * are compiled when it may, and have a plain version, equal byte for byte,
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
