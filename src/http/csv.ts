import { stringify } from 'csv-stringify/sync';
import type { CsvRow } from './answer.js';

/** Flattens a row: nested objects become `parent.child` columns (serviceLevel.20, breaks.lunch, calledBack.callId). */
function flatten(row: CsvRow, prefix = '', out: CsvRow = {}): CsvRow {
  for (const [k, v] of Object.entries(row)) {
    const name = prefix + k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) flatten(v as CsvRow, `${name}.`, out);
    else out[name] = v;
  }
  return out;
}

const OPTIONS = { record_delimiter: '\r\n', cast: { boolean: (b: boolean) => (b ? 'true' : 'false') } } as const;

/** Rows per piece of text: a piece is written before the next is made, so a large report is never one string. */
const ROWS_PER_PIECE = 1000;

function lines(flat: readonly CsvRow[], columns: readonly string[]): string {
  return stringify(
    flat.map((f) => columns.map((c) => (f[c] === null || f[c] === undefined ? '' : f[c]))),
    { ...OPTIONS, eof: true },
  );
}

/**
 * A report as CSV (RFC 4180, csv-stringify), in pieces of text: a header
 * row of the JSON field names, nested ones joined with `.`, then one line
 * per row; null is an empty field.
 *
 * Rows in memory (an array): the columns are every row's, in the order they
 * first appear (report/agent's `breaks.<reason>` differ by agent), `header`
 * when there are none. Rows pulled as they are read (pages of
 * report/abandoned): the columns are `header`, since the first line is sent
 * before the last row is read; a row's other fields are left out.
 */
export async function* csvPieces(header: readonly string[], rows: Iterable<CsvRow> | AsyncIterable<CsvRow>): AsyncGenerator<string, void, undefined> {
  if (Array.isArray(rows)) {
    const flat = (rows as readonly CsvRow[]).map((r) => flatten(r));
    const columns = flat.length > 0 ? Object.keys(flat[0]!) : [...header];
    const known = new Set(columns);
    for (const f of flat)
      for (const k of Object.keys(f))
        if (!known.has(k)) {
          known.add(k);
          columns.push(k);
        }
    yield stringify([columns], { ...OPTIONS, eof: true });
    for (let i = 0; i < flat.length; i += ROWS_PER_PIECE) yield lines(flat.slice(i, i + ROWS_PER_PIECE), columns);
    return;
  }
  yield stringify([[...header]], { ...OPTIONS, eof: true });
  let batch: CsvRow[] = [];
  for await (const row of rows) {
    batch.push(flatten(row));
    if (batch.length === ROWS_PER_PIECE) {
      yield lines(batch, header);
      batch = [];
    }
  }
  if (batch.length > 0) yield lines(batch, header);
}

/** The whole CSV as one text (tests compare the streamed answer with it). */
export async function csvText(header: readonly string[], rows: Iterable<CsvRow> | AsyncIterable<CsvRow>): Promise<string> {
  let out = '';
  for await (const piece of csvPieces(header, rows)) out += piece;
  return out;
}
