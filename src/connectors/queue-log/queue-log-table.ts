import { parse as parseCsv } from 'csv-parse/sync';
import type { QueueLogLine } from './queue-log-line.js';

/**
 * The realtime `queue_log` table (PRODUCT.md §16): MySQL or PostgreSQL rows
 * `time, callid, queuename, agent, event, data1…data5` (older schemas: one
 * `data` column, pipe-separated), read from a dump of its INSERT statements
 * (mysqldump; pg_dump --inserts or --column-inserts) or from a CSV export
 * with a header row. Rows become the same lines a queue_log file holds.
 */

/** A row by column name (lower case); NULL is null. */
export type TableRow = Record<string, string | null>;

/** Rows read, and rows that are not queue_log rows (no time, no event): counted, skipped. */
export interface TableRead {
  lines: QueueLogLine[];
  damaged: number;
}

/** The realtime schema's column order, for INSERTs without a column list and no CREATE TABLE in the file. */
function defaultColumns(count: number): string[] {
  const data5 = ['data1', 'data2', 'data3', 'data4', 'data5'];
  if (count === 11) return ['id', 'time', 'callid', 'queuename', 'agent', 'event', ...data5];
  if (count === 10) return ['time', 'callid', 'queuename', 'agent', 'event', ...data5];
  if (count === 7) return ['id', 'time', 'callid', 'queuename', 'agent', 'event', 'data'];
  return ['time', 'callid', 'queuename', 'agent', 'event', 'data'];
}

const TABLE = String.raw`(?:[\x60"]?\w+[\x60"]?\.)?[\x60"]?(\w+)[\x60"]?`;

/** A quoted identifier or a bare one, unquoted and lower-cased. */
function ident(raw: string): string {
  return raw
    .trim()
    .replace(/^[`"[]|[`"\]]$/g, '')
    .toLowerCase();
}

/** Splits at commas outside parentheses and quotes. */
function topLevelSplit(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out;
}

/** The column order a `CREATE TABLE queue_log (…)` in the dump declares, or null. */
function createTableColumns(text: string): string[] | null {
  const m = new RegExp(String.raw`CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?${TABLE}\s*\(`, 'gi');
  for (let hit = m.exec(text); hit; hit = m.exec(text)) {
    if (hit[1]!.toLowerCase() !== 'queue_log') continue;
    let depth = 1;
    let i = m.lastIndex;
    for (; i < text.length && depth > 0; i++) {
      if (text[i] === '(') depth++;
      else if (text[i] === ')') depth--;
    }
    const defs = topLevelSplit(text.slice(m.lastIndex, i - 1));
    const cols = defs
      .map((d) => d.trim())
      .filter((d) => d && !/^(PRIMARY|UNIQUE|KEY|CONSTRAINT|INDEX|FOREIGN|CHECK|FULLTEXT)\b/i.test(d))
      .map((d) => ident(/^([`"][^`"]+[`"]|\S+)/.exec(d)![1]!));
    return cols.length > 0 ? cols : null;
  }
  return null;
}

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '0': '\0', Z: '\x1a', b: '\b' };

/**
 * Every row of `INSERT INTO queue_log … VALUES (…),(…);` in a SQL dump. The
 * VALUES grammar of a dump is small (quoted strings, numbers, NULL), so it is
 * scanned here rather than by a general SQL parser, which would build a
 * syntax tree of a many-megabyte statement. MySQL strings take backslash
 * escapes; PostgreSQL's only in `E'…'` (pg_dump sets standard_conforming_strings).
 */
export function sqlDumpRows(text: string): TableRow[] {
  const standardStrings = /standard_conforming_strings\s*=\s*on/i.test(text);
  const declared = createTableColumns(text);
  const rows: TableRow[] = [];
  const insert = new RegExp(String.raw`INSERT\s+INTO\s+${TABLE}\s*(?:\(([^)]*)\))?\s*VALUES\s*`, 'gi');
  let pos = 0;
  for (;;) {
    insert.lastIndex = pos;
    const hit = insert.exec(text);
    if (!hit) break;
    const ours = hit[1]!.toLowerCase() === 'queue_log';
    const listed = hit[2] ? hit[2].split(',').map(ident) : null;
    let i = insert.lastIndex;
    // Tuples until the statement's end.
    for (;;) {
      while (i < text.length && /\s/.test(text[i]!)) i++;
      if (text[i] !== '(') break;
      i++;
      const values: Array<string | null> = [];
      for (;;) {
        while (i < text.length && /\s/.test(text[i]!)) i++;
        const e = (text[i] === 'E' || text[i] === 'e') && text[i + 1] === "'";
        if (text[i] === "'" || e) {
          const escapes = e || !standardStrings;
          i += e ? 2 : 1;
          let v = '';
          for (; i < text.length; i++) {
            const c = text[i]!;
            if (c === '\\' && escapes) {
              const n = text[++i] ?? '';
              v += ESCAPES[n] ?? n;
            } else if (c === "'" && text[i + 1] === "'") {
              v += "'";
              i++;
            } else if (c === "'") {
              i++;
              break;
            } else v += c;
          }
          values.push(v);
        } else {
          let j = i;
          while (j < text.length && text[j] !== ',' && text[j] !== ')') j++;
          const raw = text.slice(i, j).trim();
          values.push(/^null$/i.test(raw) ? null : raw);
          i = j;
        }
        while (i < text.length && /\s/.test(text[i]!)) i++;
        if (text[i] === ',') {
          i++;
          continue;
        }
        i++; // ')'
        break;
      }
      if (ours) {
        const cols = listed ?? declared ?? defaultColumns(values.length);
        const row: TableRow = {};
        cols.forEach((c, k) => (row[c] = values[k] ?? null));
        rows.push(row);
      }
      while (i < text.length && /\s/.test(text[i]!)) i++;
      if (text[i] === ',') i++;
      else break;
    }
    pos = Math.max(i, insert.lastIndex);
  }
  return rows;
}

/** A CSV export with a header row naming the columns (`time,callid,queuename,agent,event,data1,…`). MySQL's `\N` is NULL. */
export function csvRows(text: string): TableRow[] {
  const records = parseCsv(text, {
    columns: (header: string[]) => header.map((h) => ident(h)),
    skip_empty_lines: true,
    relax_column_count: true,
    bom: true,
    trim: false,
  }) as Array<Record<string, string>>;
  return records.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === '\\N' || v === 'NULL' ? null : v])));
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Checks a `--timezone` (an IANA name such as `Europe/Berlin`, or `UTC`); throws RangeError when unknown. */
export function checkTimezone(tz: string): void {
  zoneFormat(tz);
}

function zoneFormat(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** How far `tz`'s wall clock is ahead of UTC at the instant `utcMs`. */
function zoneOffsetMs(utcMs: number, tz: string): number {
  const p = Object.fromEntries(
    zoneFormat(tz)
      .formatToParts(new Date(utcMs))
      .map((x) => [x.type, Number(x.value)]),
  );
  const wall = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return wall - Math.floor(utcMs / 1000) * 1000;
}

/**
 * A realtime `time` as Unix seconds: `2023-02-21 22:43:42[.ffffff]` is a wall
 * clock time in `tz` (a time that exists twice in a DST change is read as the
 * first); an explicit offset (`+00`, `+05:30`, `Z`, as PostgreSQL's timestamptz
 * prints) wins; a plain number is already Unix seconds. Else NaN.
 */
export function tableTime(raw: string, tz: string): number {
  const s = raw.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s);
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d+)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(s);
  if (!m) return NaN;
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const frac = m[7] ? Number(m[7]) : 0;
  const wall = Date.UTC(y, mo - 1, d, h, mi, se);
  let utc: number;
  if (m[8]) {
    const z = m[8];
    const sign = z.startsWith('-') ? -1 : 1;
    const digits = z === 'Z' ? '0000' : z.slice(1).replace(':', '').padEnd(4, '0');
    utc = wall - sign * (Number(digits.slice(0, 2)) * 3600_000 + Number(digits.slice(2, 4)) * 60_000);
  } else {
    const first = wall - zoneOffsetMs(wall, tz);
    const second = wall - zoneOffsetMs(first, tz);
    utc = Math.min(first, second);
  }
  return utc / 1000 + frac;
}

/** Rows → queue_log lines in the table's order; a row without a readable time or an event is damaged. */
export function tableLines(rows: TableRow[], tz: string): TableRead {
  const lines: QueueLogLine[] = [];
  let damaged = 0;
  rows.forEach((r, order) => {
    const time = tableTime(r.time ?? '', tz);
    const verb = (r.event ?? '').trim().toUpperCase();
    if (!Number.isFinite(time) || time <= 0 || !verb) {
      damaged++;
      return;
    }
    const data =
      r.data1 !== undefined || r.data2 !== undefined ? ['data1', 'data2', 'data3', 'data4', 'data5'].map((k) => r[k] ?? '') : (r.data ?? '').split('|');
    lines.push({
      time,
      // Unix seconds as the id's time: the same row gives the same event ids whatever the dump's format.
      timeRaw: String(Math.round(time * 1e6) / 1e6),
      callId: r.callid ?? 'NONE',
      queue: r.queuename ?? r.queue ?? 'NONE',
      agent: r.agent ?? 'NONE',
      verb,
      data,
      order,
      visit: 0,
    });
  });
  return { lines, damaged };
}
