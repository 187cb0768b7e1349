import fs from 'node:fs';
import type { SwitchEvent } from '../core/api-client.js';
import { VisitCounter, compareLines, parseQueueLogLine, type QueueLogLine } from './queue-log-line.js';
import { csvRows, sqlDumpRows, tableLines } from './queue-log-table.js';
import { QueueLogTranslator, type QueueLogMapper } from './queue-log-translator.js';

/** What the import needs of the connector runtime: the mapping (kept fresh) and the batcher. */
export interface ImportSink {
  mapper: QueueLogMapper & { knowsQueue(queue: string): boolean; knowsMember(member: string): boolean };
  /** Reads switch/config again before an unknown name is logged and skipped (the runtime's group()/agent()). */
  group(queue: string): Promise<number | undefined>;
  agent(member: string): Promise<number | undefined>;
  forward(...events: SwitchEvent[]): void;
  batcher: { pending: number; flush(): Promise<void> };
}

/** `--format`: Asterisk's pipe file (default), a SQL dump of the realtime table's INSERTs, or its CSV export with a header row. */
export type QueueLogFormat = 'pipe' | 'sql' | 'csv';

export interface ImportOptions {
  file: string;
  follow: boolean;
  /** Default `pipe`; `sql` and `csv` are read whole (no --follow). */
  format?: QueueLogFormat;
  /** `--timezone` (IANA name, default UTC): the zone of the realtime table's `time` values. */
  timezone?: string;
  sink: ImportSink;
  log: (line: string) => void;
  /** Bytes read so far and the file's size, after each chunk. */
  progress?: (read: number, size: number, lines: number) => void;
  /** --follow: how often the file is checked for growth (ms). */
  pollMs?: number;
  /** Ends --follow (SIGINT/SIGTERM in the command). */
  signal?: AbortSignal;
}

export interface ImportCounts {
  lines: number;
  unknownLines: number;
  /** Lines (or rows) that are not queue_log lines, and runs of NUL bytes (a torn write after a crash): skipped, never fatal. */
  damagedLines: number;
}

/** Events wait in memory up to this many before reading pauses for the service to catch up. */
const MAX_PENDING = 20_000;
const CHUNK = 1 << 20;

/**
 * `callcenter import queue-log FILE [--follow]`: reads the file in chunks
 * (a line split across chunks, or a last line still being written, waits
 * for its newline), holds the lines of the current second so that lines
 * written out of order within it are sorted, translates them and forwards
 * the events in batches, pausing the reading while the service catches up.
 */
export async function importQueueLog(opts: ImportOptions): Promise<ImportCounts> {
  const { sink } = opts;
  const translator = new QueueLogTranslator(sink.mapper, (e) => sink.forward(e));
  const counts: ImportCounts = { lines: 0, unknownLines: 0, damagedLines: 0 };
  const visits = new VisitCounter();
  const primed = new Set<string>();
  let held: QueueLogLine[] = [];
  let second = -Infinity;
  let rest = '';
  let offset = 0;

  /** An unknown queue or member: read switch/config again once before the translator logs and skips it. */
  const unknownQueue = (l: QueueLogLine) => l.verb === 'ENTERQUEUE' && !primed.has(`q:${l.queue}`) && !sink.mapper.knowsQueue(l.queue);
  const unknownMember = (l: QueueLogLine) => l.agent !== 'NONE' && l.agent !== '' && !primed.has(`a:${l.agent}`) && !sink.mapper.knowsMember(l.agent);
  const prime = async (l: QueueLogLine) => {
    if (unknownQueue(l)) {
      primed.add(`q:${l.queue}`);
      await sink.group(l.queue);
    }
    if (unknownMember(l)) {
      primed.add(`a:${l.agent}`);
      await sink.agent(l.agent);
    }
  };
  const release = (upTo: number) => {
    if (held.length === 0) return;
    held.sort(compareLines);
    const keep: QueueLogLine[] = [];
    for (const l of held) {
      if (Math.floor(l.time) < upTo) translator.line(l);
      else keep.push(l);
    }
    held = keep;
  };
  const accept = async (l: QueueLogLine) => {
    visits.mark(l);
    // Awaited only for a name not seen before (a million awaits cost more than the lookups).
    if (unknownQueue(l) || unknownMember(l)) await prime(l);
    const sec = Math.floor(l.time);
    if (sec > second) {
      release(sec);
      second = sec;
    }
    held.push(l);
  };
  const take = async (text: string) => {
    const lines = (rest + text).split('\n');
    rest = lines.pop()!;
    for (const raw of lines) {
      let s = raw.replace(/\r$/, '');
      // A torn write (the file grew, its data never reached the disk) reads as a run of NUL bytes where lines were,
      // and the next whole line follows the run: what precedes a run is lost, what follows the last is read.
      if (s.includes('\0')) {
        const parts = s.split(/\0+/);
        counts.damagedLines += parts.length - 1;
        s = parts[parts.length - 1]!;
      }
      if (s === '') continue;
      counts.lines++;
      const l = parseQueueLogLine(s, counts.lines);
      if (!l) {
        counts.damagedLines++;
        continue;
      }
      await accept(l);
    }
    if (sink.batcher.pending >= MAX_PENDING) await sink.batcher.flush();
  };
  /** The realtime table, read whole: its rows in the table's order. */
  const readTable = async (format: 'sql' | 'csv') => {
    const text = fs.readFileSync(opts.file, 'utf8');
    const read = tableLines(format === 'sql' ? sqlDumpRows(text) : csvRows(text), opts.timezone ?? 'UTC');
    counts.damagedLines += read.damaged;
    for (const l of read.lines) {
      counts.lines++;
      await accept(l);
      if (sink.batcher.pending >= MAX_PENDING) await sink.batcher.flush();
    }
    opts.progress?.(text.length, text.length, counts.lines);
  };
  const readNew = async () => {
    const size = fs.statSync(opts.file).size;
    if (size < offset) {
      opts.log(`queue-log: ${opts.file} shrank (rotated or truncated): reading it again from the start`);
      offset = 0;
      rest = '';
    }
    if (size === offset) return;
    const stream = fs.createReadStream(opts.file, { start: offset, end: size - 1, encoding: 'utf8', highWaterMark: CHUNK });
    for await (const chunk of stream) {
      await take(chunk as string);
      offset += Buffer.byteLength(chunk as string);
      opts.progress?.(offset, size, counts.lines);
    }
  };

  if (opts.format === 'sql' || opts.format === 'csv') await readTable(opts.format);
  else await readNew();
  if (opts.follow && (opts.format ?? 'pipe') === 'pipe') {
    const pollMs = opts.pollMs ?? 500;
    while (!opts.signal?.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(t);
          opts.signal?.removeEventListener('abort', done);
          resolve();
        };
        const t = setTimeout(done, pollMs);
        opts.signal?.addEventListener('abort', done, { once: true });
      });
      await readNew();
      // A quiet file: the held second is complete once the clock is past it.
      release(Math.floor(Date.now() / 1000));
      translator.endStale(Math.max(second, 0));
    }
  }
  if (rest.trim() !== '') opts.log(`queue-log: the last line has no newline (still being written?); not imported: ${JSON.stringify(rest.slice(0, 80))}`);
  release(Infinity);
  translator.endStale(second);
  await sink.batcher.flush();
  counts.unknownLines = translator.unknownLines;
  return counts;
}
