import fs from 'node:fs';
import type { SwitchEvent } from '../core/api-client.js';
import { compareLines, parseQueueLogLine, type QueueLogLine } from './queue-log-line.js';
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

export interface ImportOptions {
  file: string;
  follow: boolean;
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
  const counts: ImportCounts = { lines: 0, unknownLines: 0 };
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
  const take = async (text: string) => {
    const lines = (rest + text).split('\n');
    rest = lines.pop()!;
    for (const raw of lines) {
      const s = raw.replace(/\r$/, '');
      if (s === '') continue;
      counts.lines++;
      const l = parseQueueLogLine(s, counts.lines);
      if (!l) {
        translator.unknownLines++;
        continue;
      }
      // Awaited only for a name not seen before (a million awaits cost more than the lookups).
      if (unknownQueue(l) || unknownMember(l)) await prime(l);
      const sec = Math.floor(l.time);
      if (sec > second) {
        release(sec);
        second = sec;
      }
      held.push(l);
    }
    if (sink.batcher.pending >= MAX_PENDING) await sink.batcher.flush();
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

  await readNew();
  if (opts.follow) {
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
