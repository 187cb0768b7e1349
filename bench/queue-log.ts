/**
 * `callcenter import queue-log` on a million lines (PRODUCT.md §10: under
 * 60 s on the embedded database).
 *
 *   npx tsx bench/queue-log.ts [--lines 1000000] [--agents 50] [--direct no]
 *
 * Generates a realistic file (bench/queue-log-generate.ts), starts
 * `callcenter serve` on a fresh SQLite directory, sets up the queues as
 * groups and the members as agents (SIP destinations), then times the
 * import command as its own process, end to end (read, translate, batches
 * to events/ingest, flush). Beside it, the same file through the reader and
 * translator alone (no service), so the share of the service reads as the
 * ratio of the two.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from '../src/cli/args.js';
import { importQueueLog } from '../src/connectors/queue-log/queue-log-import.js';
import { QUEUES, generateQueueLog, memberName } from './queue-log-generate.js';
import { ok, startSwitchService, type SwitchService } from './switch-service.js';
import { SwitchApi, SwitchMapper, type SwitchEvent } from '../src/connectors/core/index.js';
import { root } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const LINES = Number(options.lines ?? 1_000_000);
const AGENTS = Number(options.agents ?? 50);
/** `--direct no`: skip the comparison with events posted straight to events/ingest (halves the run). */
const DIRECT = options.direct !== 'no';

const file = path.join(os.tmpdir(), `queue_log-bench-${process.pid}`);
let t0 = Date.now();
const gen = generateQueueLog(LINES, file, AGENTS);
console.log(`generated ${gen.lines.toLocaleString('en-US')} lines over ${gen.days} days in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${file}`);

async function setUp(s: SwitchService): Promise<void> {
  const groups: number[] = [];
  for (const name of QUEUES) groups.push((await ok<{ data: { groupId: number } }>(s, 'group/create', { name })).data.groupId);
  const role = await ok<{ data: { roleId: number } }>(s, 'role/create', { name: 'agents', permissions: [] });
  for (let i = 0; i < AGENTS; i++) {
    const ext = memberName(i).replace(/^\w+\/(\d+).*$/, '$1');
    await ok(s, 'Agent/create', {
      name: `Agent ${ext}`,
      email: `a${ext}@example.com`,
      password: 'agent-password-1',
      phone: `98000${ext}`,
      call_pass: '12345678',
      dest_type: 'SIP',
      dest_value: `sip:${ext}@pbx`,
      role: role.data.roleId,
      group: Object.fromEntries(groups.map((g) => [String(g), { receive_call: 'Y' }])),
    });
  }
}

/** The file through the reader and translator alone, with the service's mapping: the events, and the seconds it took. */
async function translate(s: SwitchService): Promise<{ events: SwitchEvent[]; secs: number }> {
  const mapper = new SwitchMapper({ log: () => undefined });
  mapper.load(await new SwitchApi({ api: s.api, ...s.sw }).config());
  const events: SwitchEvent[] = [];
  const started = Date.now();
  await importQueueLog({
    file,
    follow: false,
    log: () => undefined,
    sink: {
      mapper,
      group: async (q) => mapper.group(q),
      agent: async (m) => mapper.agent(m),
      forward: (...e) => void events.push(...e),
      batcher: { pending: 0, flush: async () => undefined },
    },
  });
  return { events, secs: (Date.now() - started) / 1000 };
}

class Skip extends Error {}

/** user + system CPU seconds of a process so far (Linux /proc; 0 when unreadable). */
function cpuSeconds(pid: number): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

/** Runs a command to its end; its CPU seconds are sampled from /proc while it runs (the last sample before it exits). */
function runMeasured(cmd: string, args: string[]): Promise<{ stdout: string; stderr: string; cpu: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root });
    let stdout = '';
    let stderr = '';
    let cpu = 0;
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    const timer = setInterval(() => (cpu = Math.max(cpu, cpuSeconds(child.pid!))), 50);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(timer);
      if (code === 0) resolve({ stdout, stderr, cpu });
      else reject(new Error(`import exited ${code}: ${stderr.slice(-500)}`));
    });
  });
}
const rows: string[] = [];
let summary = '';
// 1. The import command, end to end, as its own process.
const s1 = await startSwitchService('sqlite', 'qlog1');
try {
  await setUp(s1);
  const serverCpu0 = cpuSeconds(s1.child.pid!);
  t0 = Date.now();
  const {
    stdout,
    stderr,
    cpu: importCpu,
  } = await runMeasured(process.execPath, [
    'bin/callcenter.js',
    'import',
    'queue-log',
    file,
    '--api',
    s1.api,
    '--user-id',
    s1.sw.userId,
    '--token',
    s1.sw.token,
  ]);
  const serverCpu = cpuSeconds(s1.child.pid!) - serverCpu0;
  const secs = (Date.now() - t0) / 1000;
  const rejected = stderr.split('\n').filter((l) => l.startsWith('rejected'));
  const { events, secs: translateSecs } = await translate(s1);
  rows.push(
    `| read + translate only (no service) | ${gen.lines} | ${events.length} | ${translateSecs.toFixed(1)} | ${Math.round(gen.lines / translateSecs)} |`,
  );
  rows.push(`| callcenter import queue-log (end to end) | ${gen.lines} | ${events.length} | ${secs.toFixed(1)} | ${Math.round(gen.lines / secs)} |`);
  rows.push(
    `\nCPU seconds during the import: service ${serverCpu.toFixed(1)}, import command ${importCpu.toFixed(1)} (sum ${(serverCpu + importCpu).toFixed(1)} s: the wall time on an otherwise idle machine, at most, since the two take turns)`,
  );
  summary = `${stdout.trim()}; rejected ${rejected.length}${rejected.length ? ` (first: ${rejected[0]})` : ''}\ntarget < 60 s for a million lines: ${secs * (1_000_000 / gen.lines) < 60 ? 'met' : 'NOT met'}`;
  await s1.stop();
  if (!DIRECT) throw new Skip();
  // 2. The same events posted straight to events/ingest on a fresh service set up the same way (same ids), one sender, batches of 1000.
  const s2 = await startSwitchService('sqlite', 'qlog2');
  try {
    await setUp(s2);
    const api = new SwitchApi({ api: s2.api, ...s2.sw }, 60_000);
    t0 = Date.now();
    for (let i = 0; i < events.length; i += 1000) await api.ingest(events.slice(i, i + 1000));
    const direct = (Date.now() - t0) / 1000;
    rows.push(`| the same events posted to events/ingest directly (1 sender, batches of 1000) | — | ${events.length} | ${direct.toFixed(1)} | — |`);
    rows.push(`\nimport / direct ingest: ${(secs / direct).toFixed(2)} ×`);
  } finally {
    await s2.stop();
  }
} catch (err) {
  if (!(err instanceof Skip)) throw err;
} finally {
  await s1.stop();
}
console.log(
  `\n${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}; SQLite\n`,
);
console.log('| run | lines | events | seconds | lines/s |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(r);
console.log(`\n${summary}`);
