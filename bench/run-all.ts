/**
 * The whole benchmark suite in one command (`callcenter bench`):
 *
 *   1. core: the ceiling (bare node:http) and the authenticated hot path
 *      (account/getSettings with ssid and with a token) — bench/core.ts;
 *   2. the modules' own benchmarks, each run as it is written, their result
 *      tables collected: bench/hot-lookups.ts, bench/ingest-live.ts,
 *      bench/analysis.ts, bench/reports.ts (whichever exist);
 *   3. with SOAK_SECONDS (or --soak N): steady load for that long, RSS
 *      sampled, no error allowed.
 *
 * Prints every figure and writes docs/benchmarks.md.
 *
 *   npx callcenter bench [--only core,hot,ingest,analysis,reports,soak] [--db sqlite|postgres|both]
 *                        [--duration 5] [--rounds 3] [--quick] [--out docs/benchmarks.md]
 *
 * Needs wrk (apt-get install wrk); PostgreSQL from BENCH_DATABASE_URL (or
 * TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/callcenter_bench, created when
 * missing) when reachable.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from '../src/cli/args.js';
import type { Dialect } from '../src/db/types.js';
import { runCore, runSoak, type CoreRow, type SoakResult } from './core.js';
import { ensureBenchDatabase, hasTaskset, hasWrk, lastTable, root } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const quick = options.quick !== undefined;
const DURATION = Number(options.duration ?? (quick ? 2 : 5));
const ROUNDS = Number(options.rounds ?? (quick ? 1 : 3));
const SOAK = Number(options.soak ?? process.env.SOAK_SECONDS ?? 0);
const ONLY = new Set((options.only ?? 'core,hot,ingest,analysis,reports,soak').split(','));
const OUT = path.resolve(root, options.out ?? 'docs/benchmarks.md');

// --quick keeps its smaller seeded databases apart from the full-size ones the scripts keep for reuse.
const quickDir = path.join(os.tmpdir(), 'callcenter-bench-quick');
const MODULE_BENCHES: Array<{ key: string; title: string; file: string; args: string[]; env?: Record<string, string> }> = [
  {
    key: 'hot',
    title: `Hot lookups (Directory/getDnc, getInfo on ${quick ? '100,000' : '1 million'} contacts)`,
    file: 'bench/hot-lookups.ts',
    args: ['--duration', String(DURATION), '--rounds', String(ROUNDS), ...(quick ? ['--contacts', '100000'] : [])],
    env: quick ? { BENCH_DATA_DIR: path.join(quickDir, 'hot') } : {},
  },
  {
    key: 'ingest',
    title: 'Ingest and live endpoints (events/ingest, Agent/live, queue/count)',
    file: 'bench/ingest-live.ts',
    args: ['--duration', String(DURATION)],
  },
  {
    key: 'analysis',
    title: `Analysis (analysis/hits over ${quick ? '200,000' : '10 million'} calls)`,
    file: 'bench/analysis.ts',
    args: quick ? ['--quick', '--data-dir', path.join(quickDir, 'analysis'), '--schema', 'bench_analysis_quick'] : [],
  },
  {
    key: 'reports',
    title: `Manager reports (report/queue, report/agent, report/abandoned over ${quick ? '200,000' : '10 million'} calls, 30 days)`,
    file: 'bench/reports.ts',
    args: quick
      ? ['--quick', '--data-dir', path.join(quickDir, 'reports'), '--schema', 'bench_reports_quick']
      : ['--calls', '10000000', '--data-dir', 'data/bench-reports-10m', '--schema', 'bench_reports_10m'],
  },
];

/** Runs a module's benchmark script, echoing its output; answers its last markdown table. */
function runScript(file: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; table: string; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      process.stdout.write(d);
      out += d.toString();
    });
    child.on('close', (code) => {
      resolve({ code, table: lastTable(out), seconds: (Date.now() - started) / 1000 });
    });
  });
}

function coreTable(rows: CoreRow[]): string {
  const lines = rows.map((r) => `| ${r.dialect} | ${r.name} | ${Math.round(r.rps)} | ${r.p99ms.toFixed(2)} ms | ${r.ratio.toFixed(2)} × | ${r.errors} |`);
  return `| database | request | req/s | p99 | ÷ ceiling | errors |\n|---|---|---|---|---|---|\n${lines.join('\n')}`;
}

function soakTable(rows: SoakResult[]): string {
  const lines = rows.map(
    (r) =>
      `| ${r.dialect} | ${r.seconds} s | ${Math.round(r.rps)} | ${r.requests} | ${r.errors} | ${r.rssStart.toFixed(0)} / ${r.rssWarm.toFixed(0)} / ${r.rssEnd.toFixed(0)} / ${r.rssMax.toFixed(0)} MiB | ${r.growth >= 0 ? '+' : ''}${r.growth.toFixed(1)} MiB | ${r.ok ? 'ok' : 'FAILED'} |`,
  );
  return `| database | duration | req/s | requests | errors | RSS start / after warm-up / end / max | growth after warm-up | verdict |\n|---|---|---|---|---|---|---|---|\n${lines.join('\n')}`;
}

async function main(): Promise<number> {
  if (!hasWrk) {
    console.error('callcenter bench needs wrk: apt-get install -y wrk');
    return 2;
  }
  const pgOk = options.db !== 'sqlite' && (await ensureBenchDatabase());
  const dialects: Dialect[] = options.db === 'postgres' ? ['postgres'] : pgOk ? ['sqlite', 'postgres'] : ['sqlite'];
  const dbArg = dialects.length === 2 ? 'both' : dialects[0]!;
  const cpu = os.cpus();
  const header = [
    `Run ${new Date().toISOString()} with \`callcenter bench${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}\`${SOAK ? ` (SOAK_SECONDS=${SOAK})` : ''}.`,
    `Machine: ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}; servers pinned to core 0 and wrk to core 1: ${hasTaskset ? 'yes' : 'no (taskset missing)'}.`,
    `Servers: ${process.env.CALLCENTER_RUNTIME === 'build' ? 'the compiled build (`npm run build`, what production runs; through tsx the hot paths are 15–30 % slower)' : 'the TypeScript sources through tsx (`npm run build` first measures what production runs: 15–30 % faster on the hot paths)'}. Databases: ${dialects.join(', ')}${pgOk || options.db === 'sqlite' ? '' : ' (PostgreSQL not reachable: skipped)'}. Load average at the start: ${os.loadavg()[0]!.toFixed(2)}.`,
  ];
  const sections: string[] = [];
  let failed = false;

  if (ONLY.has('core')) {
    console.log(`\n== core: ceiling and authenticated hot path (${ROUNDS} rounds × ${DURATION} s, 50 connections)`);
    const rows = await runCore(dialects, DURATION, ROUNDS, console.log);
    sections.push(
      `## Ceiling and the authenticated hot path\n\nbench/core.ts: medians of ${ROUNDS} rounds of ${DURATION} s at 50 connections; each request compared with the bare node:http server (same answer body) measured just before it.\n\n${coreTable(rows)}`,
    );
    if (rows.some((r) => r.errors > 0)) failed = true;
  }
  for (const b of MODULE_BENCHES) {
    if (!ONLY.has(b.key)) continue;
    if (!fs.existsSync(path.join(root, b.file))) {
      sections.push(`## ${b.title}\n\n${b.file} does not exist yet: not measured.`);
      continue;
    }
    console.log(`\n== ${b.key}: ${b.file} ${b.args.join(' ')} --db ${dbArg}`);
    const r = await runScript(b.file, [...b.args, '--db', dbArg], b.env);
    if (r.code !== 0) failed = true;
    sections.push(
      `## ${b.title}\n\n\`${b.file} ${[...b.args, '--db', dbArg].join(' ')}\` (${r.seconds.toFixed(0)} s${r.code === 0 ? '' : `, exit code ${r.code}`}):\n\n${r.table || '(no result table printed)'}`,
    );
  }
  if (ONLY.has('soak') && SOAK > 0) {
    console.log(`\n== soak: ${SOAK} s of steady load per database`);
    const results: SoakResult[] = [];
    for (const d of dialects) results.push(await runSoak(d, SOAK, console.log));
    if (results.some((r) => !r.ok)) failed = true;
    sections.push(
      `## Soak\n\nbench/core.ts runSoak: getSettings (ssid and token, 8 connections), updateSettings (2) and auth/token (1) at once for ${SOAK} s; server RSS sampled every second. Passes with no error and RSS growth after warm-up (first fifth) under max(16 MiB, 10 %).\n\n${soakTable(results)}`,
    );
  } else if (ONLY.has('soak')) {
    sections.push('## Soak\n\nNot run this time: `SOAK_SECONDS=120 npx callcenter bench --only soak`.');
  }

  const howTo = [
    '```sh',
    'npx callcenter bench                     # full size: 1 million contacts, 10 million calls for analysis and for reports (seeded once, then reused)',
    'npx callcenter bench --quick             # minutes: 100,000 contacts, 200,000 calls, 2 s runs',
    'npx callcenter bench --only core,ingest  # a part',
    'SOAK_SECONDS=600 npx callcenter bench --only soak   # steady load for 10 minutes, RSS sampled',
    '```',
  ].join('\n');
  const doc = `# Benchmarks\n\nWritten by \`npx callcenter bench\` (bench/run-all.ts); run it again to refresh. Targets are ratios to a bare \`node:http\` server measured in the same run on the same machine (PRODUCT.md §8): absolute figures move with the machine, the ratios should not. On a shared or loaded machine every figure is low and noisy: compare ratios from one run, and read the load average below.\n\n${howTo}\n\n${header.join('\n')}\n\n${sections.join('\n\n')}\n`;
  // The side-by-side comparisons are written by hand (each its own run of two builds): kept as they are.
  const previous = fs.existsSync(OUT) ? fs.readFileSync(OUT, 'utf8') : '';
  const sideBySide = previous.indexOf('\n## Side by side\n');
  fs.writeFileSync(OUT, sideBySide < 0 ? doc : `${doc}${previous.slice(sideBySide)}`);
  console.log(`\nwrote ${path.relative(process.cwd(), OUT)}${failed ? ' (some runs failed)' : ''}`);
  return failed ? 1 : 0;
}

main().then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
