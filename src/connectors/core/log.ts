/** Where a connector writes its lines: stderr by default, a collector in tests. */
export type LogLine = (line: string) => void;

export const stderrLine: LogLine = (line) => process.stderr.write(`${line}\n`);

/** Logs each key once (unknown queues and members: one line per name, not one per event). */
export class OnceLog {
  private readonly seen = new Set<string>();
  constructor(private readonly log: LogLine) {}

  once(key: string, line: string): void {
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.log(line);
  }
}
