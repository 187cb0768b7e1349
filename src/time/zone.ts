/**
 * Time-zone arithmetic: the one cache of zone offsets, shared by the live
 * views ("today"), the call state machine and the analysis buckets. Offsets
 * change at whole quarter-hours at the latest, so each is looked up once per
 * 15-minute slot and zone: rolling up millions of calls costs a map lookup
 * per call. An unknown zone counts as UTC (account zones are validated when
 * they are set; this only keeps a bad row from failing a read).
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
const offsets = new Map<string, number>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = makeFormatter(tz) ?? makeFormatter('UTC')!;
    formatters.set(tz, f);
  }
  return f;
}

function makeFormatter(tz: string): Intl.DateTimeFormat | null {
  try {
    return new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
  } catch {
    return null;
  }
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
export function localDayNumber(tz: string, utcSec: number): number {
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

/** `YYYY-MM-DD HH:MM:SS` of a Unix time in the account's zone (whole seconds, truncated): call reports. */
export function localDateTime(utcSec: number, tz: string): string {
  const t = Math.floor(utcSec);
  const d = new Date((t + offsetSeconds(tz, t)) * 1000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

export interface LocalDay {
  /** YYYY-MM-DD */
  key: string;
  /** Unix seconds of the local midnight that starts the day. */
  start: number;
}

const days = new Map<string, LocalDay>();

/**
 * The account-local day of a Unix time: its key and the Unix second its local
 * midnight falls on, memoised per 15-minute slot (every real offset is a
 * multiple of 15 minutes, so a slot never straddles a local midnight).
 */
export function localDay(ts: number, tz: string): LocalDay {
  const slot = Math.floor(ts / 900);
  const memoKey = `${tz}|${slot}`;
  const hit = days.get(memoKey);
  if (hit) return hit;
  const base = slot * 900;
  const wall = base + offsetSeconds(tz, base);
  const sinceMidnight = ((wall % 86400) + 86400) % 86400;
  // The midnight's own offset, not the slot's: on a DST day they differ.
  const out = { key: wallLabel(wall, 'date'), start: wallToUtc(tz, wall - sinceMidnight) };
  if (days.size > 20_000) days.clear();
  days.set(memoKey, out);
  return out;
}
