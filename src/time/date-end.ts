import { fail } from '../errors/catalogue.js';
import { offsetSeconds } from './zone.js';
import { isMilliseconds, secondsExpected } from './unix.js';

const DATE_RE = /^(\d{1,2})[-/ ](\d{1,2})[-/ ](\d{4})(?:\s+(\d{1,2}):(\d{1,2})(?::(\d{1,2}))?)?$/;

/**
 * One end of a date range as local wall-clock seconds. Accepted: MM-DD-YYYY,
 * MM/DD/YYYY or MM DD YYYY, each with optional HH:mm[:ss] (a date alone is
 * the start of the day for `from` and its last second for `to`), or Unix
 * seconds (an instant, converted to the zone's wall clock; over 10^11 it can
 * only be milliseconds: 1001 saying seconds are expected).
 */
export function parseDateEnd(text: string, tz: string, end: 'from' | 'to'): number {
  const s = text.trim();
  if (/^\d+(\.\d+)?$/.test(s) && isMilliseconds(Number(s))) throw fail(1001, secondsExpected(`date ${end}`, s));
  if (/^\d{9,12}(\.\d+)?$/.test(s)) {
    const utc = Number(s);
    return utc + offsetSeconds(tz, utc);
  }
  const m = DATE_RE.exec(s);
  if (!m) throw fail(1001, `invalid date ${JSON.stringify(text)}: use MM-DD-YYYY HH:mm:ss, MM/DD/YYYY HH:mm:ss, MM DD YYYY HH:mm:ss or Unix seconds`);
  const [mo, d, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const timeGiven = m[4] !== undefined;
  const [hh, mi, ss] = timeGiven ? [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)] : end === 'from' ? [0, 0, 0] : [23, 59, 59];
  const ms = Date.UTC(y, mo - 1, d, hh, mi, ss);
  const back = new Date(ms);
  if (mo < 1 || mo > 12 || back.getUTCDate() !== d || back.getUTCMonth() !== mo - 1 || hh > 23 || mi > 59 || ss > 59) {
    throw fail(1001, `invalid date ${JSON.stringify(text)}`);
  }
  return ms / 1000;
}
