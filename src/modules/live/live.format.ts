/** Durations as the vendor shows them: [hours, minutes, seconds], zero-padded strings. */
export function hms(secs: number): [string, string, string] {
  const s = Math.max(0, Math.floor(secs));
  const pad = (n: number) => String(n).padStart(2, '0');
  return [pad(Math.floor(s / 3600)), pad(Math.floor((s % 3600) / 60)), pad(s % 60)];
}

/** Averages are rounded to 2 decimals (PRODUCT §3). */
export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
