/**
 * bench/analysis.ts --baseline DIR: this build and the one checked out (and
 * built) in DIR, each as a server process started as `npm start` starts it,
 * on the same seeded database, asked the same questions in the same rounds,
 * the two alternated (which one goes first changes every round). Per
 * question and server: p50/p95 of one client (wrk, one connection) and the
 * server's CPU time per request, read from /proc around each wrk run (it
 * moves far less than latency with what else the machine runs).
 *
 * The database is seeded and migrated by this build; an older build applies
 * none of the migrations it does not know and reads the tables it knows. A
 * question it cannot answer is left out of the table with a note.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Database, Dialect } from '../src/db/types.js';
import { ask, callStorer, login, questionMix, whileStoring, type Question } from './analysis-mix.js';
import { cpuMicros, median, root, startServerProcess, stopChild, waitHealthy, wrkLatency } from './support.js';

export interface BaselineRun {
  dialect: Dialect;
  /** In process, for the calls the live rows store. */
  db: Database;
  accountId: number;
  /** The servers' database environment (DATA_DIR or DATABASE_URL). */
  env: Record<string, string>;
  baselineDir: string;
  rounds: number;
  seconds: number;
  match?: string;
  /** A second server of this build in the same rounds: "control ÷ this build", the spread of identical code. */
  control?: boolean;
}

interface Timing {
  p50: number;
  p95: number;
  cpuUs: number;
}

export interface BaselineRow {
  dialect: Dialect;
  name: string;
  keys: number;
  bytes: number;
  ours: Timing;
  theirs: Timing;
  /** Medians over the rounds of baseline ÷ this build (above 1: this build is cheaper or faster). */
  cpuRatio: number;
  p50Ratio: number;
  cpuRange: [number, number];
  /** --control: medians and range over the rounds of the second server of this build ÷ this build. */
  control?: { cpuRatio: number; cpuRange: [number, number] };
}

interface Server {
  label: string;
  child: ChildProcess;
  port: number;
  ssid: string;
}

/** A port nothing listens on now (other benchmarks may run on this machine). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** The checkout's commit, short (the baseline's label); its directory name when it is no git checkout. */
export function checkoutLabel(dir: string): string {
  try {
    return execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return path.basename(dir);
  }
}

/**
 * Until the server has stopped working by itself (the stored hour grids its
 * jobs build at a start): less than 2 % of a core over half a second, at most a minute.
 */
async function settled(pid: number | undefined): Promise<void> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    const before = cpuMicros(pid);
    await new Promise((r) => setTimeout(r, 500));
    if (cpuMicros(pid) - before <= 10_000) return; // one clock tick at most
  }
}

async function startServer(label: string, cwd: string, env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const child = startServerProcess({ ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' }, { cwd });
  const server = { label, child, port, ssid: '' };
  try {
    await waitHealthy(port);
    server.ssid = await login(port);
    return server;
  } catch (err) {
    await stopChild(child);
    throw err;
  }
}

/** One wrk run of a question against a server, with the server's CPU time per request. */
async function timed(s: Server, body: Record<string, unknown>, name: string, seconds: number, store: (() => Promise<void>) | null): Promise<Timing> {
  const cpu0 = cpuMicros(s.child.pid);
  const w = await whileStoring(store, () => wrkLatency(`http://127.0.0.1:${s.port}/api/v2/analysis/hits`, JSON.stringify({ ssid: s.ssid, ...body }), seconds));
  const cpu = cpuMicros(s.child.pid) - cpu0;
  if (w.failures > 0 || !(w.requests > 0)) throw new Error(`${name} (${s.label}): wrk saw ${w.failures} failures in ${w.requests} requests`);
  return { p50: w.p50, p95: w.p95, cpuUs: cpu / w.requests };
}

async function compareOne(
  o: BaselineRun,
  ours: Server,
  theirs: Server,
  twin: Server | null,
  [name, body]: Question,
  store: () => Promise<void>,
): Promise<BaselineRow> {
  const live = name.startsWith('live') ? store : null;
  if (live) await store();
  const all = twin ? [ours, theirs, twin] : [ours, theirs];
  // The first asks (nothing kept in memory yet) and a few more, on every server, before any is timed.
  for (let i = 0; i < 3; i++) for (const s of all) await ask(s.port, s.ssid, body, `${name} (${s.label})`);
  const runs: Array<{ ours: Timing; theirs: Timing; twin?: Timing }> = [];
  for (let round = 0; round < o.rounds; round++) {
    // Which server goes first changes every round (with a control, each goes first in every third).
    const order = all.map((_, i) => all[(round + i) % all.length]!);
    const got = new Map<Server, Timing>();
    for (const s of order) got.set(s, await timed(s, body, name, o.seconds, live));
    runs.push({ ours: got.get(ours)!, theirs: got.get(theirs)!, ...(twin ? { twin: got.get(twin)! } : {}) });
  }
  // Still success answers after the runs (wrk does not read the bodies), and the same keys.
  const a = await ask(ours.port, ours.ssid, body, name);
  const b = await ask(theirs.port, theirs.ssid, body, `${name} (${theirs.label})`);
  if (a.keys !== b.keys) process.stderr.write(`  ${o.dialect} ${name}: ${a.keys} keys here, ${b.keys} keys in ${theirs.label}\n`);
  const pick = (side: 'ours' | 'theirs'): Timing => ({
    p50: median(runs.map((r) => r[side].p50)),
    p95: median(runs.map((r) => r[side].p95)),
    cpuUs: median(runs.map((r) => r[side].cpuUs)),
  });
  const cpuRatios = runs.map((r) => r.theirs.cpuUs / r.ours.cpuUs);
  const twinRatios = twin ? runs.map((r) => r.twin!.cpuUs / r.ours.cpuUs) : [];
  const row: BaselineRow = {
    dialect: o.dialect,
    name,
    keys: a.keys,
    bytes: a.reply.length,
    ours: pick('ours'),
    theirs: pick('theirs'),
    cpuRatio: median(cpuRatios),
    p50Ratio: median(runs.map((r) => r.theirs.p50 / r.ours.p50)),
    cpuRange: [Math.min(...cpuRatios), Math.max(...cpuRatios)],
    ...(twin ? { control: { cpuRatio: median(twinRatios), cpuRange: [Math.min(...twinRatios), Math.max(...twinRatios)] as [number, number] } } : {}),
  };
  const control = row.control ? `; control ÷ this ${row.control.cpuRatio.toFixed(2)}, rounds ${twinRatios.map((r) => r.toFixed(2)).join(' ')}` : '';
  process.stderr.write(
    `  ${o.dialect} ${name}: p50 ${row.ours.p50.toFixed(1)} / ${row.theirs.p50.toFixed(1)} ms, CPU ${row.ours.cpuUs.toFixed(0)} / ${row.theirs.cpuUs.toFixed(0)} µs a request (${theirs.label} ÷ this ${row.cpuRatio.toFixed(2)}, rounds ${cpuRatios.map((r) => r.toFixed(2)).join(' ')}${control})\n`,
  );
  return row;
}

/** Both servers on `o.env`'s database, every question of the mix; a question either server cannot answer becomes a note. */
export async function compareWithBaseline(o: BaselineRun): Promise<{ rows: BaselineRow[]; notes: string[] }> {
  // This build's dist/ must be current (bin/callcenter.js would compile it on start, inside the timed part);
  // the baseline's is used as it is.
  execFileSync(process.execPath, [path.join(root, 'bin/build.js'), '--if-possible'], { stdio: 'inherit' });
  const baseLabel = checkoutLabel(o.baselineDir);
  const ours = await startServer('this build', root, o.env);
  const rows: BaselineRow[] = [];
  const notes: string[] = [];
  try {
    const theirs = await startServer(baseLabel, o.baselineDir, o.env);
    const twin = o.control ? await startServer('this build (control)', root, o.env) : null;
    try {
      await settled(ours.child.pid);
      await settled(theirs.child.pid);
      if (twin) await settled(twin.child.pid);
      const { mix, agentKey } = await questionMix(ours.port, ours.ssid);
      const store = callStorer(o.db, o.accountId, agentKey);
      for (const q of mix) {
        if (o.match !== undefined && !q[0].includes(o.match)) continue;
        try {
          rows.push(await compareOne(o, ours, theirs, twin, q, store));
        } catch (err) {
          const note = `${o.dialect} ${q[0]}: left out: ${(err as Error).message}`;
          notes.push(note);
          process.stderr.write(`  ${note}\n`);
        }
      }
    } finally {
      await stopChild(theirs.child);
      if (twin) await stopChild(twin.child);
    }
  } finally {
    await stopChild(ours.child);
  }
  return { rows, notes };
}

/** The comparison as a markdown table, with how it was measured. */
export function baselineTable(rows: BaselineRow[], o: { baselineDir: string; rounds: number; seconds: number; loadBefore: number }): string {
  const base = checkoutLabel(o.baselineDir);
  const human = (b: number) => (b >= 1e6 ? `${(b / 1e6).toFixed(1)} MB` : `${(b / 1e3).toFixed(1)} kB`);
  const t = (x: Timing) => `${x.p50.toFixed(1)} / ${x.p95.toFixed(1)} ms | ${x.cpuUs.toFixed(0)} µs`;
  const controlled = rows.length > 0 && rows.every((r) => r.control !== undefined);
  const lines = rows.map(
    (r) =>
      `| ${r.dialect} | ${r.name} | ${r.keys} | ${human(r.bytes)} | ${t(r.ours)} | ${t(r.theirs)} | ${r.cpuRatio.toFixed(2)}${r.cpuRatio < 0.95 ? ' ⚠' : ''} (${r.cpuRange[0].toFixed(2)}–${r.cpuRange[1].toFixed(2)}) | ${r.p50Ratio.toFixed(2)} |` +
      (controlled ? ` ${r.control!.cpuRatio.toFixed(2)} (${r.control!.cpuRange[0].toFixed(2)}–${r.control!.cpuRange[1].toFixed(2)}) |` : ''),
  );
  return [
    `medians of ${o.rounds} rounds, ${o.seconds} s a run per server; load average ${o.loadBefore.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end`,
    '',
    `| database | question | keys | answer | this build p50 / p95 | CPU a request | ${base} p50 / p95 | CPU a request | CPU ${base} ÷ this (range) | p50 ${base} ÷ this |${controlled ? ' CPU control ÷ this (range) |' : ''}`,
    `|---|---|---|---|---|---|---|---|---|---|${controlled ? '---|' : ''}`,
    ...lines,
  ].join('\n');
}
