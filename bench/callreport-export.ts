/**
 * CallReport/export memory benchmark (PRODUCT.md §9: a million calls export
 * with RSS growth under 50 MB). Seeds N calls (`callcenter seed`'s realistic
 * history: offers, answers, holds, retries; reused when the data directory
 * already holds them), starts the real server, downloads the whole CSV
 * through `GET /api/v2/CallReport/export` while sampling the server's RSS
 * every 50 ms, and prints the rows, bytes, time and the RSS growth over the
 * server's RSS just before the export (after a small warm-up export).
 *
 *   node --import tsx bench/callreport-export.ts [--calls 1000000] [--db sqlite|postgres]
 *                                                [--data-dir /tmp/callcenter-bench-export] [--limit-mb 50]
 *                                                [--days N]   (export only the last N of the 30 days: a quicker look)
 *                                                [--encoding identity|gzip|br]   (Accept-Encoding; default: fetch's own)
 *
 * Exits 1 when the growth reaches the limit.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from '../src/cli/args.js';
import { seedCalls } from '../src/cli/seed-calls.js';
import { loadConfig } from '../src/config/config.js';
import { migrate } from '../src/db/migrate.js';
import { openDatabase } from '../src/db/open.js';
import { AccountService } from '../src/modules/account/account.service.js';
import { systemClock } from '../src/clock.js';
import { PG_URL, ensureBenchDatabase, freshBenchDatabase, postJson, rssMiB, startServerProcess, stopChild, waitHealthy } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const CALLS = Number(options.calls ?? 1_000_000);
const DIALECT = options.db === 'postgres' ? 'postgres' : 'sqlite';
const LIMIT_MB = Number(options['limit-mb'] ?? 50);
const DAYS = options.days === undefined ? undefined : Number(options.days);
const ENCODING = options.encoding;
const USER = 'export-bench';
const PASSWORD = 'export-bench-password';

async function prepare(env: Record<string, string>): Promise<{ seeded: number; seedSeconds: number }> {
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
  const db = openDatabase(config);
  try {
    await migrate(db);
    let row = await db.get<{ id: number }>('SELECT id FROM accounts WHERE username = $1', [USER]);
    if (!row) {
      await new AccountService({ db, clock: systemClock }).create({ username: USER, password: PASSWORD, name: 'Export benchmark' });
      row = await db.get<{ id: number }>('SELECT id FROM accounts WHERE username = $1', [USER]);
    }
    const accountId = Number(row!.id);
    const have = Number((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM calls WHERE account_id = $1', [accountId]))?.n ?? 0);
    if (have >= CALLS) return { seeded: 0, seedSeconds: 0 };
    const started = Date.now();
    let last = 0;
    await seedCalls(db, accountId, CALLS - have, 30, (p) => {
      if (Date.now() - last > 10_000) {
        last = Date.now();
        process.stderr.write(`  seeding: ${p.done.toLocaleString('en-US')} calls\n`);
      }
    });
    return { seeded: CALLS - have, seedSeconds: (Date.now() - started) / 1000 };
  } finally {
    await db.close();
  }
}

/** Downloads the export, counting rows and bytes without keeping them; samples the server's RSS meanwhile. */
async function download(port: number, ssid: string, query: string, pid: number): Promise<{ rows: number; bytes: number; seconds: number; peakMiB: number }> {
  let peak = rssMiB(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 50);
  const started = Date.now();
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/v2/CallReport/export?${query}`, {
      headers: { authorization: `Bearer ${ssid}`, ...(ENCODING ? { 'accept-encoding': ENCODING } : {}) },
    });
    if (res.status !== 200 || !res.body) throw new Error(`export answered HTTP ${res.status}: ${await res.text()}`);
    let rows = 0;
    let bytes = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) rows++;
    }
    return { rows: rows - 1, bytes, seconds: (Date.now() - started) / 1000, peakMiB: Math.max(peak, rssMiB(pid)) };
  } finally {
    clearInterval(sampler);
  }
}

async function main(): Promise<number> {
  let env: Record<string, string>;
  let drop = async () => undefined as void;
  if (DIALECT === 'sqlite') {
    const dir = path.resolve(options['data-dir'] ?? path.join(os.tmpdir(), 'callcenter-bench-export'));
    fs.mkdirSync(dir, { recursive: true });
    env = { DATA_DIR: dir };
  } else {
    if (!(await ensureBenchDatabase())) throw new Error(`PostgreSQL not reachable at ${PG_URL}`);
    const fresh = await freshBenchDatabase('postgres', 'export');
    env = fresh.env;
    drop = fresh.drop;
  }
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  try {
    const seed = await prepare(env);
    const server = startServerProcess({ ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
    try {
      await waitHealthy(port);
      const login = await postJson<{ ssid: string }>(port, '/api/v2/auth/login', { username: USER, password: PASSWORD });
      // Warm-up: the code paths, statement caches and pools of an export, on a small range.
      await download(port, login.ssid, `to=${Math.floor(Date.now() / 1000) - 29 * 86400}`, server.pid!);
      global.gc?.();
      await new Promise((r) => setTimeout(r, 1000));
      const before = rssMiB(server.pid!);
      const query = DAYS === undefined ? '' : `from=${Math.floor(Date.now() / 1000) - DAYS * 86400}`;
      const result = await download(port, login.ssid, query, server.pid!);
      const growth = result.peakMiB - before;
      const ok = growth < LIMIT_MB;
      console.log(
        [
          `| database | calls | rows exported | CSV bytes | seconds | rows/s | server RSS before | peak | growth |`,
          `|---|---|---|---|---|---|---|---|---|`,
          `| ${DIALECT} | ${CALLS.toLocaleString('en-US')}${seed.seeded ? ` (seeded in ${seed.seedSeconds.toFixed(0)} s)` : ''} | ${result.rows.toLocaleString('en-US')} | ${(result.bytes / 2 ** 20).toFixed(0)} MiB | ${result.seconds.toFixed(1)} | ${Math.round(result.rows / result.seconds).toLocaleString('en-US')} | ${before.toFixed(0)} MiB | ${result.peakMiB.toFixed(0)} MiB | **${growth.toFixed(1)} MiB** (limit ${LIMIT_MB}) |`,
        ].join('\n'),
      );
      if (result.rows < CALLS) console.error(`exported ${result.rows} rows of ${CALLS}`);
      return ok && result.rows >= CALLS ? 0 : 1;
    } finally {
      await stopChild(server);
    }
  } finally {
    await drop();
  }
}

process.exitCode = await main();
