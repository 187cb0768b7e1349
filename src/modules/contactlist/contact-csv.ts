import type { Readable } from 'node:stream';
import { parse, type CsvError, type Options } from 'csv-parse';
import { fail } from '../../errors/catalogue.js';

/** One data row of a contacts CSV, as a record for `parseRecord`, with where it was. */
export interface CsvRow {
  /** 0-based among the data rows (the header not counted; rows the parser rejected counted). */
  index: number;
  /** 1-based line of the file where the row ended. */
  line: number;
  raw: { number: string; name?: string; timezone?: string; fields?: Record<string, string> };
}

export interface CsvRejection {
  index: number;
  line: number;
  code: number;
  message: string;
}

/** The longest row the parser buffers: a row without its closing quote cannot make it hold the whole upload. */
const MAX_RECORD_BYTES = 64 * 1024;

/** Which cell of a row holds what: from the header row. */
interface Columns {
  number: number;
  name: number;
  timezone: number;
  fields: Array<[index: number, key: string]>;
}

/**
 * The header row: `number` (required), optional `name` and `timezone` (any
 * case), every other column a field named as its header. 1000 when
 * `number` is missing, or a column is unnamed or named twice.
 */
function columnsOf(header: string[]): Columns {
  const cols: Columns = { number: -1, name: -1, timezone: -1, fields: [] };
  const seen = new Set<string>();
  header.forEach((cell, i) => {
    const key = cell.trim();
    if (key === '') throw fail(1000, `the header row's column ${i + 1} has no name`);
    if (seen.has(key.toLowerCase())) throw fail(1000, `the header row names ${JSON.stringify(key)} twice`);
    seen.add(key.toLowerCase());
    const known = key.toLowerCase();
    if (known === 'number' || known === 'name' || known === 'timezone') cols[known] = i;
    else cols.fields.push([i, key]);
  });
  if (cols.number < 0) throw fail(1000, 'the header row must name a "number" column');
  return cols;
}

function rowOf(cells: string[], cols: Columns): CsvRow['raw'] {
  const raw: CsvRow['raw'] = { number: cells[cols.number]! };
  if (cols.name >= 0 && cells[cols.name] !== '') raw.name = cells[cols.name];
  if (cols.timezone >= 0 && cells[cols.timezone] !== '') raw.timezone = cells[cols.timezone];
  if (cols.fields.length > 0) {
    const fields: Record<string, string> = {};
    for (const [i, key] of cols.fields) if (cells[i] !== '') fields[key] = cells[i]!;
    raw.fields = fields;
  }
  return raw;
}

/**
 * Reads a contacts CSV (RFC 4180, UTF-8, optional BOM; empty lines skipped)
 * as it streams in, in batches of `batchSize` rows: the next batch is read
 * only once the caller asks for it, so memory holds one batch whatever the
 * file. A row the parser cannot read (wrong number of cells, a stray quote)
 * is reported to `reject` with code 1000 and its index and line, and the
 * rows after it are read on. A bad header row throws 1000 before any row.
 */
export async function* csvContactBatches(input: Readable, batchSize: number, reject: (r: CsvRejection) => void): AsyncGenerator<CsvRow[]> {
  let cols: Columns | null = null;
  // Records and parse errors are numbered in file order here, in the parser's own synchronous callbacks.
  let next = 0;
  const options: Options<CsvRow | null, string[]> = {
    bom: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    max_record_size: MAX_RECORD_BYTES,
    on_record: (cells, context) => {
      if (cols === null) {
        cols = columnsOf(cells);
        return null;
      }
      return { index: next++, line: context.lines, raw: rowOf(cells, cols) };
    },
  };
  // The typings tie on_record's answer to the record type of the overload taken; the rows are CsvRow.
  const parser = parse(options as unknown as Options);
  parser.on('skip', (err: CsvError & { lines?: number }) => {
    if (cols === null) return;
    reject({ index: next++, line: err.lines ?? 0, code: 1000, message: `${fail(1000).message}: ${err.message}` });
  });
  input.on('error', (err) => parser.destroy(err));
  input.pipe(parser);
  let batch: CsvRow[] = [];
  for await (const row of parser as AsyncIterable<CsvRow>) {
    batch.push(row);
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (cols === null) throw fail(1000, 'the file has no header row');
  if (batch.length > 0) yield batch;
}
