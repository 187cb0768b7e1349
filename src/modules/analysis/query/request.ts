import { fail } from '../../../errors/catalogue.js';
import { CODES, type Code, type Dim } from '../rollup/counters.js';
import { wallToUtc } from '../../../time/zone.js';
import { parseDateEnd } from '../../../time/date-end.js';

/** An analysis/hits request after parsing: what to count, over which calls, shaped how. */
export interface AnalysisQuery {
  breakDown: Dim;
  display: 'date' | 'hour' | 'month' | 'total';
  multi: boolean;
  /** Answer keys (as requested, e.g. TH) with the counter each one reads. */
  fields: { name: string; code: Code }[];
  /** Selected queued times: [fromUtc, toUtcExcl) and the same as local wall-clock seconds. */
  range: { from: number; to: number; wallFrom: number; wallTo: number } | null;
  /** Per dimension (and direction): values kept (null: any) and values excluded. */
  filters: Partial<Record<Dim | 'direction', { include: Set<string> | null; exclude: Set<string> }>>;
}

export const BREAKDOWNS: Record<string, Dim> = { agentId: 'agent', groupId: 'group', did: 'did', campaignId: 'campaign' };
const FILTER_KEYS: Record<string, Dim | 'direction'> = { ...BREAKDOWNS, direction: 'direction' };
const DISPLAYS = ['date', 'hour', 'month', 'total'] as const;

export interface RawRequest {
  filter?: unknown[];
  extra?: unknown[];
  breakDown?: string;
  disPlay?: string;
  multi?: boolean | number | string;
  fields?: string[] | string;
  fileds?: string[] | string;
}

function lookupCaseless<T>(table: Record<string, T>, name: string): T | undefined {
  const hit = Object.keys(table).find((k) => k.toLowerCase() === name.toLowerCase());
  return hit === undefined ? undefined : table[hit];
}

/** The most counter codes one question may list in `fields` (duplicates included): the input is bounded before any work. */
export const MAX_FIELDS = 32;

/**
 * The counters asked for, in the order asked, each once: codes match
 * case-insensitively and a code asked twice in any case is answered once,
 * under its first spelling. More than MAX_FIELDS codes listed: 1001 (the
 * writer of an answer is made per field list: counters-writer.ts).
 */
function parseFields(raw: string[] | string | undefined): AnalysisQuery['fields'] {
  if (raw === undefined) return CODES.map((c) => ({ name: c, code: c }));
  const list = (Array.isArray(raw) ? raw : raw.split(',')).map((s) => String(s).trim()).filter((s) => s !== '');
  if (list.length === 0) return CODES.map((c) => ({ name: c, code: c }));
  if (list.length > MAX_FIELDS) throw fail(1001, `at most ${MAX_FIELDS} counter codes in fields`);
  const out: AnalysisQuery['fields'] = [];
  const seen = new Set<string>();
  for (const name of list) {
    const upper = name.toUpperCase();
    if (seen.has(upper)) continue;
    const code = upper === 'TH' ? 'TC' : CODES.find((c) => c.toUpperCase() === upper);
    if (!code) throw fail(1001, `unknown counter code ${JSON.stringify(name.slice(0, 40))}`);
    seen.add(upper);
    out.push({ name, code });
  }
  return out;
}

function valuesOf(val: unknown): string[] {
  const list = Array.isArray(val) ? val : typeof val === 'string' ? val.split(',') : [val];
  return list.map((v) => (typeof v === 'string' || typeof v === 'number' ? String(v).trim() : '\u0000')).filter((v) => v !== '');
}

function applyFilter(q: AnalysisQuery, f: unknown, tz: string): void {
  if (typeof f !== 'object' || f === null || Array.isArray(f)) throw fail(1001, 'each filter is an object {key, condi, val}');
  const { key, condi, val } = f as { key?: unknown; condi?: unknown; val?: unknown };
  if (typeof key !== 'string') throw fail(1001, 'filter key missing');
  const op = typeof condi === 'string' ? condi.toLowerCase() : '';
  if (key.toLowerCase() === 'date') {
    if (op !== 'range') throw fail(1001, 'the date filter takes condi "range"');
    const ends = Array.isArray(val) ? val.map(String) : typeof val === 'string' ? val.split(',') : [];
    if (ends.length !== 2) throw fail(1001, 'date range val is "from,to"');
    const wallFrom = parseDateEnd(ends[0]!, tz, 'from');
    // The end is inclusive to the end of its second.
    const wallTo = parseDateEnd(ends[1]!, tz, 'to') + 1;
    if (wallTo <= wallFrom) throw fail(1001, 'the date range ends before it starts');
    const prev = q.range;
    const next = { wallFrom, wallTo, from: wallToUtc(tz, wallFrom), to: wallToUtc(tz, wallTo) };
    q.range = prev
      ? {
          wallFrom: Math.max(prev.wallFrom, next.wallFrom),
          wallTo: Math.min(prev.wallTo, next.wallTo),
          from: Math.max(prev.from, next.from),
          to: Math.min(prev.to, next.to),
        }
      : next;
    return;
  }
  const dim = lookupCaseless(FILTER_KEYS, key);
  if (!dim) throw fail(1001, `unknown filter key ${JSON.stringify(key)}`);
  if (op !== 'eq' && op !== 'ne' && op !== 'in') throw fail(1001, `filter ${key} takes condi eq, ne or in`);
  const values = valuesOf(val);
  if (values.length === 0 || values.includes('\u0000')) throw fail(1001, `filter ${key} needs a value`);
  if (op !== 'in' && values.length !== 1) throw fail(1001, `filter ${key} with condi ${op} takes one value (use in for several)`);
  if (dim === 'direction' && values.some((v) => v !== 'inbound' && v !== 'outbound')) throw fail(1001, 'direction is inbound or outbound');
  const cur = (q.filters[dim] ??= { include: null, exclude: new Set() });
  if (op === 'ne') values.forEach((v) => cur.exclude.add(v));
  else cur.include = new Set(cur.include ? values.filter((v) => cur.include!.has(v)) : values);
}

function parseMulti(m: RawRequest['multi']): boolean {
  if (m === undefined) return false;
  if (typeof m === 'boolean') return m;
  const s = String(m).toLowerCase();
  if (s === 'true' || s === '1') return true;
  if (s === 'false' || s === '0' || s === '') return false;
  throw fail(1001, 'multi is true or false');
}

/** Parses the request; every malformed part is 1001 naming it. `extra` holds further filter objects (ANDed). */
export function parseRequest(body: RawRequest, tz: string): AnalysisQuery {
  const breakDown = body.breakDown === undefined || body.breakDown === '' ? 'agent' : lookupCaseless(BREAKDOWNS, body.breakDown);
  if (!breakDown) throw fail(1001, `breakDown is one of ${Object.keys(BREAKDOWNS).join(', ')}`);
  const dispRaw = (body.disPlay ?? 'date').toLowerCase() || 'date';
  const display = DISPLAYS.find((d) => d === dispRaw);
  if (!display) throw fail(1001, `disPlay is one of ${DISPLAYS.join(', ')}`);
  const q: AnalysisQuery = { breakDown, display, multi: parseMulti(body.multi), fields: parseFields(body.fields ?? body.fileds), range: null, filters: {} };
  for (const f of [...(body.filter ?? []), ...(body.extra ?? [])]) applyFilter(q, f, tz);
  return q;
}
