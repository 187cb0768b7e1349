import { createHash } from 'node:crypto';
import { fail } from '../../../errors/catalogue.js';
import { AgentSums, QueueSums } from '../figures.js';
import { QUARTER, intervalsOf, type Interval, type IntervalName } from '../intervals.js';
import type { ReportRepository } from '../report.repository.js';
import { agentRow, agentSums, queueRow, queueSums, type AgentParams, type AgentSumsAnswer, type QuarterRange, type QueueParams } from '../report.sums.js';
import { utcDayOf } from '../rollup/marks.js';
import { DayCache } from './day-cache.js';
import { dayPieces, type DayPiece } from './day-pieces.js';

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

function fragment<S>(intervals: Interval[], sums: Map<number, S[]>, row: (key: number, iv: Interval, s: S) => unknown) {
  const rows = new Map<number, Buffer>();
  let size = 0;
  for (const [key, list] of sums) {
    const bytes = Buffer.from(list.map((s, i) => JSON.stringify(row(key, intervals[i]!, s))).join(','));
    rows.set(key, bytes);
    size += bytes.length + 64;
  }
  return { intervals, rows, size: size + intervals.length * 32 };
}

/** `[` the rows of every key in order, each key's pieces in time order `]`, in one buffer. */
function join(keys: readonly number[], parts: readonly Fragment[], missing: (key: number, f: Fragment) => Buffer): Buffer {
  const list: Buffer[] = [];
  for (const key of keys) {
    for (const f of parts) {
      const bytes = f.rows.get(key) ?? missing(key, f);
      if (bytes.length === 0) continue;
      if (list.length > 0) list.push(COMMA);
      list.push(bytes);
    }
  }
  return Buffer.concat([Buffer.from('['), ...list, Buffer.from(']')]);
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
  private readonly cache: DayCache<Fragment>;

  constructor(maxBytes: number) {
    this.cache = new DayCache(maxBytes);
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

  async queue(repo: ReportRepository, p: QueueParams, range: QuarterRange): Promise<Buffer> {
    const pieces = dayPieces(range.start, range.end, p.tz);
    const tokens = await this.tokens(repo, pieces, range);
    const shape = `q|${repo.accountId}|${p.tz}|${p.interval}|${p.groupId}|${p.sl.join(',')}|${p.sa}|${bhKey(p)}`;
    const parts: Fragment[] = [];
    checkRows(p.keys.length, range, p);
    let count = 0;
    for (const [i, piece] of pieces.entries()) {
      const key = `${shape}|${piece.start}`;
      let f = piece.whole ? this.cache.get(key, tokens[i]!) : undefined;
      if (!f) {
        const ans = await queueSums(repo, p, piece);
        f = fragment(ans.intervals, ans.sums, (g, iv, s: QueueSums) => queueRow(g, iv, s, p.sl));
        if (piece.whole) this.cache.set(key, tokens[i]!, f);
      }
      parts.push(f);
      count += f.intervals.length;
    }
    const keys = new Set(p.keys);
    for (const f of parts) for (const g of f.rows.keys()) keys.add(g);
    const sorted = [...keys].sort((a, b) => a - b);
    if (sorted.length * count > MAX_ROWS) throw tooManyRows();
    const empty = new QueueSums();
    return join(sorted, parts, (g, f) => Buffer.from(f.intervals.map((iv) => JSON.stringify(queueRow(g, iv, empty, p.sl))).join(',')));
  }

  async agent(repo: ReportRepository, p: AgentParams, range: QuarterRange): Promise<Buffer> {
    const pieces = dayPieces(range.start, range.end, p.tz);
    const tokens = await this.tokens(repo, pieces, range);
    const agents = createHash('sha1').update(p.agents.join(',')).digest('base64url');
    const shape = `a|${repo.accountId}|${p.tz}|${p.interval}|${bhKey(p)}|${p.filtered}|${agents}`;
    const parts: AgentFragment[] = [];
    const fresh = new Map<number, AgentSumsAnswer>();
    checkRows(p.agents.length, range, p);
    for (const [i, piece] of pieces.entries()) {
      let f = piece.whole ? (this.cache.get(`${shape}|${piece.start}`, tokens[i]!) as AgentFragment | undefined) : undefined;
      if (!f) {
        const ans = await agentSums(repo, p, piece);
        fresh.set(i, ans);
        f = agentFragment(ans, ans.reasons);
      }
      parts.push(f);
    }
    // Every row names the reasons of the whole report: a day written with other ones is written again.
    const all = [...new Set(parts.flatMap((f) => f.reasons))].sort();
    const written = reasonsKey(all);
    for (const [i, piece] of pieces.entries()) {
      if (parts[i]!.writtenWith === written && !fresh.has(i)) continue;
      if (parts[i]!.writtenWith !== written) parts[i] = agentFragment(fresh.get(i) ?? (await agentSums(repo, p, piece)), all);
      if (piece.whole) this.cache.set(`${shape}|${piece.start}`, tokens[i]!, parts[i]!);
    }
    const empty = new AgentSums();
    return join(p.agents, parts, (a, f) => Buffer.from(f.intervals.map((iv) => JSON.stringify(agentRow(a, iv, empty, all))).join(',')));
  }
}

function agentFragment(ans: AgentSumsAnswer, writeWith: string[]): AgentFragment {
  const f = fragment(ans.intervals, ans.sums, (a, iv, s: AgentSums) => agentRow(a, iv, s, writeWith));
  return { ...f, reasons: ans.reasons, writtenWith: reasonsKey(writeWith) };
}

function bhKey(p: QueueParams | AgentParams): string {
  return p.bh ? `${p.bh.startMin}-${p.bh.endMin}-${[...p.bh.weekDays].sort().join('')}` : '';
}
