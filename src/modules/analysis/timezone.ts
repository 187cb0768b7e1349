/**
 * Time-zone arithmetic for analysis buckets. Offsets are looked up once per
 * UTC hour and zone (zones change their offset only at whole hours in
 * practice), so rolling up millions of calls costs a map lookup per call.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
const offsets = new Map<string, number>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** Local wall-clock minus UTC, in seconds, at the instant `utcSec`. */
export function offsetSeconds(tz: string, utcSec: number): number {
  if (tz === 'UTC' || tz === 'Etc/UTC') return 0;
  // Offsets change at whole quarter-hours at the latest; cache per 15 minutes.
  const slot = Math.floor(utcSec / 900);
  const key = `${tz}|${slot}`;
  let off = offsets.get(key);
  if (off === undefined) {
    const at = slot * 900;
    const p: Record<string, number> = {};
    for (const part of formatter(tz).formatToParts(new Date(at * 1000))) {
      if (part.type !== 'literal') p[part.type] = Number(part.value);
    }
    const wall = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) / 1000;
    off = wall - at;
    if (offsets.size > 200_000) offsets.clear();
    offsets.set(key, off);
  }
  return off;
}

/** Days since 1970-01-01 of the local date of `utcSec` in `tz`. */
export function localDay(tz: string, utcSec: number): number {
  return Math.floor((utcSec + offsetSeconds(tz, utcSec)) / 86400);
}

/**
 * The UTC instant of a local wall-clock time (seconds since the epoch as if
 * the wall clock were UTC). Ambiguous or skipped local times (DST changes)
 * resolve to the offset in force just before.
 */
export function wallToUtc(tz: string, wallSec: number): number {
  let guess = wallSec - offsetSeconds(tz, wallSec);
  guess = wallSec - offsetSeconds(tz, guess);
  return guess;
}

/** True when the zone's offset is a whole number of hours at `utcSec`. */
export function wholeHourOffset(tz: string, utcSec: number): boolean {
  return offsetSeconds(tz, utcSec) % 3600 === 0;
}

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** Bucket labels in the account's zone: `YYYY-MM-DD`, `YYYY-MM-DD HH:00`, `YYYY-MM`. */
export function wallLabel(wallSec: number, display: 'date' | 'hour' | 'month'): string {
  const d = new Date(Math.floor(wallSec) * 1000);
  const ymd = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  if (display === 'date') return ymd;
  if (display === 'month') return ymd.slice(0, 7);
  return `${ymd} ${pad(d.getUTCHours())}:00`;
}
