/**
 * What the retention job costs ingest (issue #20): events/ingest latency
 * while the job purges about a million rows (calls, hits, legs, agent
 * states of a seeded history), against ingest alone on the same database in
 * the same run: a baseline before the purge and another after it. Ingest and
 * the job share one process, as on a node: a request every 20 ms (a call's
 * cycle for 10 agents, 20 events), each timed from its start.
 *
 *   npx tsx bench/retention-purge.ts [--db sqlite|postgres|both] [--calls 300000] [--days 30] [--batch 500] [--baseline-s 15] [--every-ms 20] [--pause-ms 0]
 */
import fs from 'node:fs';
import { buildApp } from '../src/app.js';
import { parseArgs } from '../src/cli/args.js';
import { seedCalls } from '../src/cli/seed-calls.js';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config/config.js';
import { migrate } from '../src/db/migrate.js';
import type { Database, Dialect } from '../src/db/types.js';
import { AccountService } from '../src/modules/account/account.service.js';
import { RetentionJob } from '../src/modules/retention/retention-job.js';
import { openFreshBenchDatabase } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const CALLS = Number(options.calls ?? 300_000);
const DAYS = Number(options.days ?? 30);
const BATCH = Number(options.batch ?? 500);
const PAUSE_MS = Number(options['pause-ms'] ?? 0);
const BASELINE_MS = Number(options['baseline-s'] ?? 15) * 1000;
const EVERY_MS = Number(options['every-ms'] ?? 20);
const MAX_INFLIGHT = 8;
const DIALECTS: Dialect[] = options.db === 'sqlite' ? ['sqlite'] : options.db === 'postgres' ? ['postgres'] : ['sqlite', 'postgres'];
const TABLES = ['calls', 'call_hits', 'call_legs', 'call_recordings', 'agent_state_log'];

async function rows(db: Database, accountId: number): Promise<number> {
  let n = 0;
  for (const t of TABLES) n += Number((await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t} WHERE account_id = $1`, [accountId]))!.n);
  return n;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

/** A call's cycle (queued, ringing, answered, ended) per agent, now-ish timestamps (inside every horizon). */
function traffic(agents: number[]) {
  let n = 0;
  let ts = Math.floor(Date.now() / 1000);
  return (): unknown[] => {
    const out: unknown[] = [];
    ts += 1;
    for (const agentId of agents) {
      const callId = `live-${n++}`;
      out.push(
        { eventId: `${callId}-q`, type: 'call.queued', ts, callId, groupId: 7, caller: `9197${String(n % 1e8).padStart(8, '0')}` },
        { eventId: `${callId}-r`, type: 'call.ringing', ts, callId, agentId },
        { eventId: `${callId}-a`, type: 'call.answered', ts, callId, agentId },
        { eventId: `${callId}-e`, type: 'call.ended', ts: ts + 0.5, callId },
      );
    }
    return out;
  };
}

/**
 * Sends a batch every EVERY_MS until `until()` is true; the latency of each
 * (ms), how many failed, and how many ticks were skipped because MAX_INFLIGHT
 * requests were still waiting (a backlog: the database did not keep up).
 */
async function ingestWhile(ingest: () => Promise<void>, until: () => boolean): Promise<{ lat: number[]; failed: number; skipped: number }> {
  const lat: number[] = [];
  let failed = 0;
  let skipped = 0;
  const inflight = new Set<Promise<void>>();
  while (!until()) {
    if (inflight.size >= MAX_INFLIGHT) skipped += 1;
    else {
      const t0 = performance.now();
      const p: Promise<void> = ingest().then(
        () => void lat.push(performance.now() - t0),
        () => void (failed += 1),
      );
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    }
    await new Promise((r) => setTimeout(r, EVERY_MS));
  }
  await Promise.all(inflight);
  return { lat, failed, skipped };
}

console.log(`load average at start: ${fs.readFileSync('/proc/loadavg', 'utf8').trim()}`);
console.log(
  '| database | rows purged | purge s | batch transaction p50 / p99 / max (ms) | ingest p50 / p99 without purge (ms) | during purge (ms) | p99 ratio (during ÷ without) |\n|---|---|---|---|---|---|---|',
);
for (const dialect of DIALECTS) {
  const db = await openFreshBenchDatabase(dialect, 'retention');
  try {
    await migrate(db);
    const config = loadConfig({ LOG_LEVEL: 'silent', RETENTION_INTERVAL_MINUTES: '0', WEBHOOK_DELIVERY: '0' });
    const { services, app } = await buildApp({ config, db });
    const accountId = await new AccountService({ db, clock: systemClock }).create({ username: 'bench-retention', password: 'bench-password', name: 'bench' });
    process.stderr.write(`[${dialect}] seeding ${CALLS} calls over ${DAYS} days…\n`);
    await seedCalls(db, accountId, CALLS, DAYS);
    await db.run('INSERT INTO groups (account_id, group_id, name, created_at) VALUES ($1, 7, $2, 0) ON CONFLICT (account_id, group_id) DO NOTHING', [
      accountId,
      'Group 7',
    ]);
    const agents: number[] = [];
    for (let i = 0; i < 10; i++) {
      const row = await db.get<{ id: number }>('INSERT INTO agents (account_id, name, email, create_date) VALUES ($1, $2, $3, 0) RETURNING id', [
        accountId,
        `Live ${i}`,
        `live-${i}@bench.invalid`,
      ]);
      agents.push(Number(row!.id));
    }
    await services.events.ingest(
      accountId,
      agents.map((agentId) => ({ eventId: `login-${agentId}`, type: 'agent.login', ts: Math.floor(Date.now() / 1000), agentId })),
    );
    const next = traffic(agents);
    const ingest = async () => {
      const r = await services.events.ingest(accountId, next());
      if (r.errors.length > 0) throw new Error(JSON.stringify(r.errors[0]));
    };
    process.stderr.write(`[${dialect}] rows in the purged tables: ${await rows(db, accountId)}\n`);
    await services.accounts.updateSettings(accountId, { retention: { callDays: 1 } });
    // The job's own transactions, timed: on SQLite each holds the one connection, so the longest is about the most an ingest request waits for one.
    const batchMs: number[] = [];
    const timed = new Proxy(db, {
      get(target, prop) {
        if (prop === 'transaction')
          // Timed from inside: the time the batch holds the connection, not the wait for it behind ingest.
          return <T>(fn: (tx: Parameters<Parameters<Database['transaction']>[0]>[0]) => Promise<T>) =>
            target.transaction(async (tx) => {
              const t0 = performance.now();
              try {
                return await fn(tx);
              } finally {
                batchMs.push(performance.now() - t0);
              }
            });
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const job = new RetentionJob({
      db: timed,
      clock: systemClock,
      accounts: services.accounts,
      recordingsDir: config.recordingsDir,
      log: { info: () => undefined, warn: console.warn, error: console.error },
      audit: null,
      batchSize: BATCH,
      pauseMs: PAUSE_MS,
    });
    // Warm-up, then: without, during, without again.
    await ingestWhile(
      ingest,
      (
        (end) => () =>
          performance.now() > end
      )(performance.now() + 3000),
    );
    const quiet1 = await ingestWhile(
      ingest,
      (
        (end) => () =>
          performance.now() > end
      )(performance.now() + BASELINE_MS / 2),
    );
    let done = false;
    const t0 = performance.now();
    const purge = job.runOnce().finally(() => (done = true));
    const duringRun = await ingestWhile(ingest, () => done);
    const during = duringRun.lat;
    const run = await purge;
    const purgeS = (performance.now() - t0) / 1000;
    const quiet2 = await ingestWhile(
      ingest,
      (
        (end) => () =>
          performance.now() > end
      )(performance.now() + BASELINE_MS / 2),
    );
    // Legs are removed with their calls but not counted by the job: the figure is a lower bound.
    const purged = run.ran ? run.calls + run.hits + run.agentStates + run.recordings + run.originated : 0;
    const quiet = [...quiet1.lat, ...quiet2.lat];
    const extra = (r: { failed: number; skipped: number }[]) =>
      `failed ${r.reduce((a, x) => a + x.failed, 0)}, skipped ${r.reduce((a, x) => a + x.skipped, 0)}`;
    const f = (xs: number[]) => `${pct(xs, 50).toFixed(1)} / ${pct(xs, 99).toFixed(1)}`;
    process.stderr.write(`[${dialect}] ${JSON.stringify(run)}\n`);
    console.log(`load average now: ${fs.readFileSync('/proc/loadavg', 'utf8').trim()}`);
    console.log(
      `| ${dialect} | ${purged.toLocaleString('en-US')} (≥) | ${purgeS.toFixed(0)} | ${f(batchMs)} / ${Math.max(...batchMs).toFixed(1)} | ${f(quiet)} (n=${quiet.length}; ${extra([quiet1, quiet2])}) | ${f(during)} (n=${during.length}; ${extra([duringRun])}) | ${(pct(during, 99) / pct(quiet, 99)).toFixed(2)} |`,
    );
    await app.close();
  } finally {
    await db.close();
  }
}
console.log(`load average at end: ${fs.readFileSync('/proc/loadavg', 'utf8').trim()}`);
