/**
 * Unix times are seconds everywhere (PRODUCT.md §5). 10^11 seconds is the
 * year 5138, while a millisecond timestamp of any date after March 1973 is
 * above it: a value over this bound can only be milliseconds, and is refused
 * with a message saying seconds are expected.
 */
export const MAX_UNIX_SECONDS = 100_000_000_000;

/** True when `n` can only be a millisecond timestamp (over 10^11). */
export function isMilliseconds(n: number): boolean {
  return n > MAX_UNIX_SECONDS;
}

/** The detail of the refusal: `<field> <value> can only be milliseconds: Unix seconds are expected`. */
export function secondsExpected(field: string, value: number | string): string {
  return `${field} ${value} can only be milliseconds: Unix seconds are expected`;
}
