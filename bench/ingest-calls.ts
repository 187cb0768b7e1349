/**
 * Complete-call ingest (PRODUCT.md §8, issue 34): events/ingest of batches of
 * 500 events that form whole calls (queued, ringing, answered or missed,
 * ended: `completeCallTraffic`), four senders at once, on a fresh database
 * per run. Every fourth event ends a call, so this is the path that writes
 * the call history, the report and analysis roll-ups, their change marks and
 * the agent-state history.
 *
 *   npx tsx bench/ingest-calls.ts [--db sqlite|postgres|both] [--duration 10] [--senders 4]
 *                                 [--rounds 3] [--baseline DIR] [--max-loss 0.10] [--cpu-prof DIR]
 *
 * --baseline DIR: another checkout (`git worktree add`, `npm run build`
 * there), started as its own `npm start` starts it, measured in the same
 * rounds as this one, alternately (this build first in odd rounds, the
 * baseline first in even ones), each run on a database of its own made by
 * that build's `account create` (an older build migrates its own schema).
 * The table gives each build's median events/s and the median of the
 * per-round ratios; the regression check fails (exit 1) when the median ratio
 * of a database is below 1 − max-loss (default 0.10: a change that costs more
 * than 10 % fails). This machine's timings move by ±10 % between runs minutes
 * apart, so only the ratio of runs made side by side counts.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { completeCallTraffic } from './agent-traffic.js';
import { ensureBenchDatabase, freshBenchDatabase, median, postJson, root, startScriptEnv, startServerProcess, stopChild, waitHealthy } from './support.js';
import { parseArgs } from '../src/cli/args.js';
import { PostgresDatabase } from '../src/db/postgres.js';
import { SqliteDatabase } from '../src/db/sqlite.js';
import type { Database, Dialect } from '../src/db/types.js';

const { options } = parseArgs(process.argv.slice(2));
const DURATION = Number(options.duration ?? 10);
const SENDERS = Number(options.senders ?? 4);
const ROUNDS = Number(options.rounds ?? 3);
const MAX_LOSS = Number(options['max-loss'] ?? 0.1);
// --cpu-prof DIR: every server writes a V8 CPU profile there when it stops (where a batch's time goes).
const CPU_PROF = options['cpu-prof'] ? path.resolve(options['cpu-prof']) : null;
const BASELINE = options.baseline ? path.resolve(options.baseline) : null;
const DIALECTS: Dialect[] = options.db === 'sqlite' ? ['sqlite'] : options.db === 'postgres' ? ['postgres'] : ['sqlite', 'postgres'];
const BATCH = 500;
const AGENTS = 200;
const USER = { username: 'bench-calls', password: 'bench-calls-password' };

/** The account made by `dir`'s own CLI (its migrations), then group 7 and the agents straight into the tables. */
async function prepare(dir: string, dialect: Dialect, env: Record<string, string>): Promise<number[]> {
  execFileSync(process.execPath, ['bin/callcenter.js', 'account', 'create', USER.username, USER.password], {
    cwd: dir,
    env: { ...process.env, ...startScriptEnv(dir), ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const db: Database =
    dialect === 'sqlite'
      ? new SqliteDatabase(path.join(env.DATA_DIR!, 'callcenter.db'))
      : new PostgresDatabase(env.DATABASE_URL!.split('?')[0]!, 1, decodeURIComponent(/options=([^&]+)/.exec(env.DATABASE_URL!)![1]!));
  try {
    const account = (await db.get<{ id: number }>('SELECT id FROM accounts WHERE username = $1', [USER.username]))!.id;
    await db.run('INSERT INTO groups (account_id, group_id, name, created_at) VALUES ($1, 7, $2, 0)', [account, 'Group 7']);
    const agents: number[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const row = await db.get<{ id: number }>('INSERT INTO agents (account_id, name, email, create_date) VALUES ($1, $2, $3, 0) RETURNING id', [
        account,
        `Agent ${i}`,
        `calls-${i}@example.com`,
      ]);
      agents.push(Number(row!.id));
    }
    return agents;
  } finally {
    await db.close();
  }
}

/** `senders` clients posting batches for `seconds`, each over its own agents; answers accepted events per second. */
async function send(port: number, ssid: string, agents: number[], seconds: number, tag: string): Promise<number> {
  const per = Math.floor(agents.length / SENDERS);
  let accepted = 0;
  let firstError = '';
  const until = Date.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async (_, s) => {
      const next = completeCallTraffic(agents.slice(s * per, (s + 1) * per), `${tag}-s${s}`);
      while (Date.now() < until) {
        const out = await postJson<{ data?: { accepted: number; errors: Array<{ code: number; message: string }> } }>(port, '/api/v2/events/ingest', {
          ssid,
          events: next(BATCH),
        });
        if (!out.data) throw new Error(`ingest failed: ${JSON.stringify(out)}`);
        accepted += out.data.accepted;
        if (out.data.errors.length > 0 && !firstError) firstError = JSON.stringify(out.data.errors[0]);
      }
    }),
  );
  if (firstError) throw new Error(`events rejected (the traffic must be valid): ${firstError}`);
  return accepted / ((performance.now() - t0) / 1000);
}

/** One run of one build on a fresh database: set-up, a warm-up on 40 agents, then the measured seconds on the other 160. */
async function run(dir: string, dialect: Dialect, port: number, round: number): Promise<number> {
  if (dialect === 'postgres' && !(await ensureBenchDatabase())) throw new Error('PostgreSQL is not reachable (BENCH_DATABASE_URL)');
  const fresh = await freshBenchDatabase(dialect, 'ingest_calls');
  try {
    const agents = await prepare(dir, dialect, fresh.env);
    const server = startServerProcess(
      { ...fresh.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' },
      { cwd: dir, nodeArgs: CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : [] },
    );
    try {
      await waitHealthy(port);
      const { ssid } = await postJson<{ ssid: string }>(port, '/api/v2/auth/login', USER);
      await send(port, ssid, agents.slice(0, 40), Math.min(3, DURATION), `w${round}`); // JIT, prepared statements
      return await send(port, ssid, agents.slice(40), DURATION, `r${round}`);
    } finally {
      await stopChild(server);
    }
  } finally {
    await fresh.drop();
  }
}

const fmt = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

async function main(): Promise<void> {
  const label = (dir: string) => (dir === root ? 'this build' : path.relative(path.dirname(root), dir) || dir);
  const rows: string[] = [];
  let failed = false;
  for (const d of DIALECTS) {
    const ours: number[] = [];
    const base: number[] = [];
    const ratios: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const order = BASELINE ? (round % 2 === 1 ? [root, BASELINE] : [BASELINE, root]) : [root];
      const got = new Map<string, number>();
      for (const dir of order) got.set(dir, await run(dir, d, dir === root ? 18_120 : 18_121, round));
      ours.push(got.get(root)!);
      let line = `  ${d} round ${round}: this build ${fmt(got.get(root)!)} events/s`;
      if (BASELINE) {
        base.push(got.get(BASELINE)!);
        ratios.push(got.get(root)! / got.get(BASELINE)!);
        line += `, ${label(BASELINE)} ${fmt(got.get(BASELINE)!)} events/s, ratio ${ratios[ratios.length - 1]!.toFixed(2)}`;
      }
      console.log(line);
    }
    if (!BASELINE) {
      rows.push(`| ${d} | ${fmt(median(ours))} (${fmt(Math.min(...ours))}–${fmt(Math.max(...ours))}) | | |`);
      continue;
    }
    const r = median(ratios);
    const ok = r >= 1 - MAX_LOSS;
    if (!ok) failed = true;
    rows.push(
      `| ${d} | ${fmt(median(ours))} (${fmt(Math.min(...ours))}–${fmt(Math.max(...ours))}) | ${fmt(median(base))} (${fmt(Math.min(...base))}–${fmt(Math.max(...base))}) | ${r.toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})${ok ? '' : ' REGRESSION'} |`,
    );
  }
  const cpus = os.cpus();
  console.log(
    `\nComplete-call ingest, batches of ${BATCH}, ${SENDERS} senders, ${DURATION} s per run, ${ROUNDS} rounds alternated; ${cpus.length} × ${cpus[0]?.model ?? 'CPU'}`,
  );
  console.log(
    `\n| database | this build, events/s (median, range) | ${BASELINE ? `${label(BASELINE)}, events/s` : 'baseline'} | ratio (median of rounds, range) |\n|---|---|---|---|\n${rows.join('\n')}`,
  );
  if (failed) {
    console.error(`\nregression: a median ratio is below ${(1 - MAX_LOSS).toFixed(2)} (--max-loss ${MAX_LOSS})`);
    process.exit(1);
  }
}

// A checkout given as --baseline must exist and be built (its dist/): a clear error before minutes of set-up.
if (BASELINE && !fs.existsSync(path.join(BASELINE, 'dist'))) {
  console.error(`--baseline ${BASELINE}: no dist/ (run npm run build there)`);
  process.exit(2);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
