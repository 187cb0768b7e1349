import { createHash } from 'node:crypto';
import { fail } from '../../../errors/catalogue.js';
import { AgentSums, QueueSums } from '../figures.js';
import { QUARTER, intervalsOf, type Interval, type IntervalName } from '../intervals.js';
import type { ReportRepository } from '../report.repository.js';
import { agentRow, agentSums, queueRow, queueSums, type AgentParams, type QuarterRange, type QueueParams } from '../report.sums.js';
import { utcDayOf } from '../rollup/marks.js';
import { ReportDayCache } from './report-day-cache.js';
import { dayPieces, type DayPiece } from './day-pieces.js';
import type { CacheUse } from '../../../cache/tokened-cache.js';
import { CHUNK, piecesOrStream, type ChunkPool } from '../../../http/chunk-pool.js';
import type { DataStream } from '../../../http/answer.js';
import { ownedTexts } from '../../../cache/owned-bytes.js';

/** Most rows one report answers (keys × intervals). */
export const MAX_ROWS = 200_000;
export const tooManyRows = () => fail(1001, 'the report would have too many rows: use a longer interval or a shorter range');

/** The rows of one local day (or part of one) as JSON, per key: `{row},{row}`. */
interface Fragment {
  readonly intervals: Interval[];
  readonly rows: Map<number, Buffer>;
  readonly size: number;
}

interface AgentFragment extends Fragment {
  /** The break reasons with time in the piece (sorted). */
  readonly reasons: string[];
  /** The reason list the rows were written with (every row names the whole report's reasons). */
  readonly writtenWith: string;
}

const COMMA = Buffer.from(',');
const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');

function fragment<S>(intervals: Interval[], sums: Map<number, S[]>, row: (key: number, iv: Interval, s: S) => unknown) {
  const keys = [...sums.keys()];
  // One allocation for the day's rows: a Buffer.from each would pin slices of Node's shared pool while kept.
  const texts = ownedTexts(
    keys.map((key) =>
      sums
        .get(key)!
        .map((s, i) => JSON.stringify(row(key, intervals[i]!, s)))
        .join(','),
    ),
  );
  const rows = new Map(keys.map((key, i) => [key, texts[i]!]));
  const size = texts.reduce((n, t) => n + t.length + 64, 0);
  return { intervals, rows, size: size + intervals.length * 32 };
}

/**
 * `[` the rows of every key in order, each key's pieces in time order `]`,
 * as they are pulled: rows of 1 kB or more as views of the kept bytes, the
 * rest copied into chunks of `pool` (http/chunk-pool.ts). An
 * answer is sent while it is written, in a few buffers used again once
 * sent, instead of being gathered whole (a month of every group by hour is
 * 4.7 MB, and a report asked 100 times a second would otherwise make as
 * many megabytes of fresh buffers for V8 to find and free).
 */
/** A key's rows of a day at least this long are sent as views of the kept bytes; shorter ones are copied into the chunk. */
const VIEW = 1024;

function* join(
  keys: readonly number[],
  parts: readonly Fragment[],
  missing: (key: number, f: Fragment) => Buffer,
  pool: ChunkPool,
): Generator<Buffer, void, undefined> {
  let chunk = pool.get();
  let pos = OPEN.copy(chunk);
  let first = true;
  for (const key of keys) {
    for (const f of parts) {
      const bytes = f.rows.get(key) ?? missing(key, f);
      if (bytes.length === 0) continue;
      if (bytes.length >= VIEW) {
        // Kept rows are sent as they are kept, not copied: what was copied before them goes first.
        if (pos > 0) {
          yield chunk.subarray(0, pos);
          chunk = pool.get();
          pos = 0;
        }
        if (!first) yield COMMA;
        first = false;
        yield bytes;
        continue;
      }
      if (!first) pos += COMMA.copy(chunk, pos);
      first = false;
      // Room is left: a chunk is handed over at CHUNK bytes, a quarter of the pool's buffers, and these rows are under 1 kB.
      pos += bytes.copy(chunk, pos);
      if (pos >= CHUNK) {
        yield chunk.subarray(0, pos);
        chunk = pool.get();
        pos = 0;
      }
    }
  }
  pos += CLOSE.copy(chunk, pos);
  yield chunk.subarray(0, pos);
}

/** The answer's rows as pieces (a small answer) or a stream (see join). */
function joined(keys: readonly number[], parts: readonly Fragment[], missing: (key: number, f: Fragment) => Buffer, pool: ChunkPool): Buffer[] | DataStream {
  // join yields at least `[]`.
  return piecesOrStream(join(keys, parts, missing, pool), pool)!;
}

/**
 * Refuses, before anything is read, a report whose keys known up front times
 * its intervals is more than MAX_ROWS (the intervals are only walked when the
 * quarter hours alone could be too many).
 */
function checkRows(keys: number, range: QuarterRange, p: { interval: IntervalName; tz: string }): void {
  if (keys * ((range.end - range.start) / QUARTER) <= MAX_ROWS) return;
  if (keys * intervalsOf(range.start, range.end, p.interval, p.tz).intervals.length > MAX_ROWS) throw tooManyRows();
}

const reasonsKey = (reasons: readonly string[]) => reasons.join('\u0000');

/**
 * report/queue and report/agent by 15 minutes, hour or day as JSON bytes put
 * together from local days: whole days from the day cache when their change
 * marks still match, the others summed from the roll-ups (report.sums.ts)
 * and kept. Every such interval lies inside one local day, so the rows are
 * the ones a single read of the range would give (the property and
 * scripted-day tests run through here).
 */
export class DayAnswers {
  private readonly cache: ReportDayCache<Fragment>;

  constructor(
    maxBytes: number,
    private readonly chunks: ChunkPool,
  ) {
    this.cache = new ReportDayCache(maxBytes);
  }

  /** What the kept days hold (GET /metrics). */
  cacheUse(): CacheUse {
    return this.cache.use();
  }

  get enabled(): boolean {
    return this.cache.maxBytes > 0;
  }

  /** The token of each piece: the marks of the UTC days it overlaps ('' for a part of a day, never kept). */
  private async tokens(repo: ReportRepository, pieces: DayPiece[], range: QuarterRange): Promise<string[]> {
    const marks = await repo.marks(utcDayOf(range.start), utcDayOf(range.end - 1));
    return pieces.map((p) => {
      if (!p.whole) return '';
      const out: number[] = [];
      for (let d = utcDayOf(p.start); d <= utcDayOf(p.end - 1); d++) out.push(marks.get(d) ?? 0);
      return out.join('.');
    });
  }

  async queue(repo: ReportRepository, p: QueueParams, range: QuarterRange): Promise<Buffer[] | DataStream> {
    checkRows(p.keys.length, range, p);
    const pieces = dayPieces(range.start, range.end, p.tz);
    const tokens = await this.tokens(repo, pieces, range);
    const shape = `q|${repo.accountId}|${p.tz}|${p.interval}|${p.groupId}|${p.sl.join(',')}|${p.sa}|${bhKey(p)}`;
    const parts: Array<Fragment | undefined> = pieces.map((piece, i) => (piece.whole ? this.cache.get(`${shape}|${piece.start}`, tokens[i]!) : undefined));
    for (const [i, ans] of await readRuns(pieces, parts, (r) => queueSums(repo, p, r))) {
      parts[i] = fragment(ans.intervals, ans.sums, (g, iv, s) => queueRow(g, iv, s, p.sl));
      if (pieces[i]!.whole) this.cache.set(`${shape}|${pieces[i]!.start}`, tokens[i]!, parts[i]!);
    }
    const done = parts as Fragment[];
    const keys = new Set(p.keys);
    for (const f of done) for (const g of f.rows.keys()) keys.add(g);
    const sorted = [...keys].sort((a, b) => a - b);
    if (sorted.length * done.reduce((n, f) => n + f.intervals.length, 0) > MAX_ROWS) throw tooManyRows();
    const empty = new QueueSums();
    return joined(sorted, done, (g, f) => Buffer.from(f.intervals.map((iv) => JSON.stringify(queueRow(g, iv, empty, p.sl))).join(',')), this.chunks);
  }

  async agent(repo: ReportRepository, p: AgentParams, range: QuarterRange): Promise<Buffer[] | DataStream> {
    checkRows(p.agents.length, range, p);
    const pieces = dayPieces(range.start, range.end, p.tz);
    const tokens = await this.tokens(repo, pieces, range);
    const agents = createHash('sha1').update(p.agents.join(',')).digest('base64url');
    const shape = `a|${repo.accountId}|${p.tz}|${p.interval}|${bhKey(p)}|${p.filtered}|${agents}`;
    const kept = pieces.map((piece, i) => (piece.whole ? (this.cache.get(`${shape}|${piece.start}`, tokens[i]!) as AgentFragment | undefined) : undefined));
    const fresh = await readRuns(pieces, kept, (r) => agentSums(repo, p, r));
    // Every row names the reasons of the whole report: a day written with other ones is written again.
    const own = pieces.map((_, i) => kept[i]?.reasons ?? reasonsIn(fresh.get(i)!.sums));
    const all = [...new Set(own.flat())].sort();
    const written = reasonsKey(all);
    const parts: AgentFragment[] = [];
    for (const [i, piece] of pieces.entries()) {
      let f = kept[i];
      if (f?.writtenWith !== written) {
        const ans = fresh.get(i) ?? (await agentSums(repo, p, piece));
        f = { ...fragment(ans.intervals, ans.sums, (a, iv, s) => agentRow(a, iv, s, all)), reasons: own[i]!, writtenWith: written };
        if (piece.whole) this.cache.set(`${shape}|${piece.start}`, tokens[i]!, f);
      }
      parts.push(f);
    }
    const empty = new AgentSums();
    return joined(p.agents, parts, (a, f) => Buffer.from(f.intervals.map((iv) => JSON.stringify(agentRow(a, iv, empty, all))).join(',')), this.chunks);
  }
}

/**
 * The sums of the pieces not kept (`kept[i]` undefined): one read per run of
 * consecutive such pieces, cut back into pieces (no interval crosses a
 * piece's edge, so each interval belongs to the piece its start is in).
 */
async function readRuns<S>(
  pieces: readonly DayPiece[],
  kept: ReadonlyArray<unknown>,
  read: (range: QuarterRange) => Promise<{ intervals: Interval[]; sums: Map<number, S[]> }>,
): Promise<Map<number, { intervals: Interval[]; sums: Map<number, S[]> }>> {
  const out = new Map<number, { intervals: Interval[]; sums: Map<number, S[]> }>();
  for (let i = 0; i < pieces.length;) {
    if (kept[i] !== undefined) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < pieces.length && kept[j + 1] === undefined) j++;
    const ans = await read({ start: pieces[i]!.start, end: pieces[j]!.end });
    let from = 0;
    for (let k = i; k <= j; k++) {
      let to = from;
      while (to < ans.intervals.length && ans.intervals[to]!.start < pieces[k]!.end) to++;
      const sums = new Map<number, S[]>();
      for (const [key, list] of ans.sums) sums.set(key, list.slice(from, to));
      out.set(k, { intervals: ans.intervals.slice(from, to), sums });
      from = to;
    }
    i = j + 1;
  }
  return out;
}

/** The break reasons with time in a piece's sums, sorted. */
function reasonsIn(sums: Map<number, AgentSums[]>): string[] {
  const out = new Set<string>();
  for (const list of sums.values()) for (const s of list) for (const r of s.breaks.keys()) out.add(r);
  return [...out].sort();
}

function bhKey(p: QueueParams | AgentParams): string {
  return p.bh ? `${p.bh.startMin}-${p.bh.endMin}-${[...p.bh.weekDays].sort().join('')}` : '';
}
