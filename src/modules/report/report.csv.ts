import { stringify } from 'csv-stringify/sync';

/** Flattens a row: nested objects become `parent.child` columns (serviceLevel.20, breaks.lunch, calledBack.callId). */
function flatten(row: Record<string, unknown>, prefix = '', out: Record<string, unknown> = {}, nested: string[] = []): Record<string, unknown> {
  for (const [k, v] of Object.entries(row)) {
    const name = prefix + k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) flatten(v as Record<string, unknown>, `${name}.`, out, nested);
    else out[name] = v;
  }
  return out;
}

/**
 * A report as CSV (RFC 4180, csv-stringify): a header row of the JSON field
 * names, nested ones joined with `.`, then one line per row; null is an empty
 * field. `header` names the columns of an answer without rows.
 */
export function toCsv(rows: ReadonlyArray<Record<string, unknown>>, header: readonly string[]): string {
  const flat = rows.map((r) => flatten(r));
  const columns = flat.length > 0 ? Object.keys(flat[0]!) : [...header];
  for (const f of flat) for (const k of Object.keys(f)) if (!columns.includes(k)) columns.push(k);
  return stringify(
    flat.map((f) => columns.map((c) => (f[c] === null || f[c] === undefined ? '' : f[c]))),
    { header: true, columns, eof: true, record_delimiter: '\r\n', cast: { boolean: (b) => (b ? 'true' : 'false') } },
  );
}
