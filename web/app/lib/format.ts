/** Dates and durations as the API takes and the pages show them. */

const pad = (n: number) => String(n).padStart(2, '0');

/** MM-DD-YYYY of a local date (the API reads it in the account's time zone). */
export function apiDate(d: Date): string {
  return `${pad(d.getMonth() + 1)}-${pad(d.getDate())}-${d.getFullYear()}`;
}

/** YYYY-MM-DD (an <input type=date> value) → MM-DD-YYYY. */
export function fromInputDate(v: string): string {
  const [y, m, d] = v.split('-');
  return `${m}-${d}-${y}`;
}

export function inputDate(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

export function daysAgo(n: number): Date {
  const d = new Date();
  d.setDate(d.getDate() - n);
  return d;
}

/** Seconds as h:mm:ss or m:ss. */
export function duration(secs: number | null | undefined): string {
  if (secs === null || secs === undefined || !Number.isFinite(secs)) return '—';
  const s = Math.max(0, Math.round(secs));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

/** Unix seconds as a local date and time. */
export function when(unix: number | null | undefined): string {
  if (!unix) return '—';
  const d = new Date(unix * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function percent(v: number | null | undefined): string {
  return v === null || v === undefined ? '—' : `${v.toFixed(1)} %`;
}
