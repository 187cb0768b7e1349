/**
 * The account-local day of a Unix time: its key (YYYY-MM-DD) and the Unix
 * second its local midnight falls on. Formatting with Intl is slow, so
 * answers are memoised per 15-minute slot (every real time-zone offset is a
 * multiple of 15 minutes, so a slot never straddles a local midnight).
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
const memo = new Map<string, { key: string; start: number }>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
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

export interface LocalDay {
  key: string;
  /** Unix seconds of the local midnight that starts the day. */
  start: number;
}

export function localDay(ts: number, tz: string): LocalDay {
  const slot = Math.floor(ts / 900);
  const memoKey = `${tz}|${slot}`;
  const hit = memo.get(memoKey);
  if (hit) return hit;
  const base = slot * 900;
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = formatter(tz).formatToParts(new Date(base * 1000));
  } catch {
    parts = formatter('UTC').formatToParts(new Date(base * 1000));
  }
  const v = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const key = `${String(v('year')).padStart(4, '0')}-${String(v('month')).padStart(2, '0')}-${String(v('day')).padStart(2, '0')}`;
  const start = base - (v('hour') * 3600 + v('minute') * 60 + v('second'));
  const out = { key, start };
  if (memo.size > 20_000) memo.clear();
  memo.set(memoKey, out);
  return out;
}
