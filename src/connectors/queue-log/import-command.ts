import fs from 'node:fs';
import { ConnectorRuntime, connectorOptions } from '../core/runtime.js';
import { OptionError } from '../core/options.js';
import { stderrLine, type LogLine } from '../core/log.js';
import { importQueueLog, type QueueLogFormat } from './queue-log-import.js';
import { checkTimezone } from './queue-log-table.js';

export interface ImportResult {
  events: number;
  duplicates: number;
  rejected: number;
  unknownLines: number;
  /** NUL runs (torn writes) and lines or rows that are not queue_log lines: skipped. */
  damagedLines: number;
  lines: number;
}

/** `--format pipe|sql|csv` and `--timezone` (checked before anything is read). */
function formatOptions(options: Record<string, string>, follow: boolean): { format: QueueLogFormat; timezone: string } {
  const format = (options.format ?? 'pipe') as QueueLogFormat;
  if (!['pipe', 'sql', 'csv'].includes(format)) throw new OptionError(`--format must be pipe, sql or csv, got ${JSON.stringify(options.format)}`);
  if (follow && format !== 'pipe') throw new OptionError('--follow reads a queue_log file as it grows; a table dump (--format sql|csv) is read whole');
  const timezone = options.timezone ?? 'UTC';
  try {
    checkTimezone(timezone);
  } catch {
    throw new OptionError(`--timezone: unknown time zone ${JSON.stringify(timezone)} (an IANA name such as Europe/Berlin, or UTC)`);
  }
  return { format, timezone };
}

function bar(read: number, size: number, lines: number, startedMs: number): string {
  const width = 30;
  const frac = size > 0 ? Math.min(1, read / size) : 1;
  const filled = Math.round(frac * width);
  const secs = (Date.now() - startedMs) / 1000;
  const rate = secs > 0 ? Math.round(lines / secs) : 0;
  return `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.round(frac * 100)}% ${lines.toLocaleString('en-US')} lines  ${rate.toLocaleString('en-US')} lines/s `;
}

/**
 * Imports FILE through a connector runtime (switch/config mapping, batches to
 * events/ingest with the switch token) and answers the counts. `progress`:
 * draw the bar (on a terminal), or a function told (bytes read, file size, lines) after each chunk.
 */
export async function runQueueLogImport(
  options: Record<string, string>,
  file: string,
  follow: boolean,
  io: {
    log: LogLine;
    progress: boolean | ((read: number, size: number, lines: number) => void);
    signal?: AbortSignal;
    env?: NodeJS.ProcessEnv;
    pollMs?: number;
  },
): Promise<ImportResult> {
  if (!fs.existsSync(file)) throw new OptionError(`no such file: ${file}`);
  const { format, timezone } = formatOptions(options, follow);
  const rt = new ConnectorRuntime({ ...connectorOptions(options, io.env), switchName: 'queue-log', log: io.log, batchDelayMs: 20 });
  await rt.start(null);
  const started = Date.now();
  let drawn = 0;
  try {
    const counts = await importQueueLog({
      file,
      follow,
      format,
      timezone,
      sink: rt,
      log: io.log,
      signal: io.signal,
      pollMs: io.pollMs,
      progress:
        typeof io.progress === 'function'
          ? io.progress
          : io.progress
            ? (read, size, lines) => {
                if (Date.now() - drawn < 200 && read < size) return;
                drawn = Date.now();
                process.stderr.write(bar(read, size, lines, started));
              }
            : undefined,
    });
    if (io.progress === true) process.stderr.write('\n');
    return {
      events: rt.health.eventsForwarded,
      duplicates: rt.health.duplicates,
      rejected: rt.health.rejected,
      unknownLines: counts.unknownLines,
      damagedLines: counts.damagedLines,
      lines: counts.lines,
    };
  } finally {
    await rt.stop();
  }
}

/** `callcenter import queue-log FILE [--follow]` with --api/--user-id/--token (or the CALLCENTER_* variables). */
export async function importCommand(positional: string[], options: Record<string, string>): Promise<number> {
  const [kind, ...files] = positional;
  // `--follow FILE` reads FILE as the flag's value: take it back as the file.
  const follow = options.follow !== undefined;
  const file = files[0] ?? (follow && options.follow !== 'true' ? options.follow : undefined);
  if (kind !== 'queue-log' || file === undefined) {
    stderrLine(
      'usage: callcenter import queue-log FILE [--follow | --format sql|csv [--timezone ZONE]] --api URL --user-id ID --token T [--queue-map NAME=ID,…] [--agent-map EXT=ID,…]',
    );
    return 2;
  }
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const r = await runQueueLogImport(options, file, follow, { log: stderrLine, progress: process.stderr.isTTY === true, signal: abort.signal });
    if (r.rejected > 0) stderrLine(`${r.rejected} events rejected by the service (see the lines above)`);
    if (r.damagedLines > 0) stderrLine(`${r.damagedLines} damaged lines skipped (runs of NUL bytes from a torn write, or lines that are not queue_log lines)`);
    console.log(`imported ${r.events} events, ${r.duplicates} duplicates, ${r.unknownLines} unknown lines`);
    return 0;
  } catch (err) {
    if (err instanceof OptionError) {
      stderrLine(err.message);
      return 2;
    }
    throw err;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
