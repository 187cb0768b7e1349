/**
 * The contact-list CSV import (PRODUCT.md §13: one million rows in under
 * 60 s on the embedded database, the server's RSS growth under 100 MB).
 * Writes a CSV of N rows (number, name, timezone, two fields; one row in a
 * hundred with a bad number, rejected alone), starts the real server on a
 * fresh database, creates a list, imports a small file first (warm-up),
 * then streams the whole file through `POST /api/v2/contactList/importCsv`
 * exactly as `callcenter import contacts` does (its upload function),
 * sampling the server's RSS every 50 ms. Prints rows, seconds, the server's
 * CPU seconds (the import's cost when the machine is shared), rows/s and
 * the RSS growth over the server's RSS just before the import.
 *
 *   node --import tsx bench/contact-import.ts [--rows 1000000] [--db sqlite|postgres] [--limit-s 60] [--limit-mb 100]
 *
 * Exits 1 when a limit is reached or a count is wrong.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from '../src/cli/args.js';
import { uploadContacts } from '../src/cli/import-contacts.js';
import { PG_URL, cpuMicros, ensureBenchDatabase, freshBenchDatabase, postJson, rssMiB, startServerProcess, stopChild, waitHealthy } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const ROWS = Number(options.rows ?? 1_000_000);
const DIALECT = options.db === 'postgres' ? 'postgres' : 'sqlite';
const LIMIT_S = Number(options['limit-s'] ?? 60);
const LIMIT_MB = Number(options['limit-mb'] ?? 100);
const ADMIN = { username: 'import-bench', password: 'import-bench-password' };
const ZONES = ['', 'America/New_York', 'Europe/London', 'Asia/Kolkata'];

/** The file, written in 1 MB pieces; the rows whose index ends in 37 have a number of 4 digits. */
function writeCsv(file: string, rows: number): { bad: number } {
  const fd = fs.openSync(file, 'w');
  let bad = 0;
  let chunk = 'number,name,timezone,plan,balance\n';
  for (let i = 0; i < rows; i++) {
    const wrong = i % 100 === 37;
    if (wrong) bad++;
    chunk += `${wrong ? 1000 + (i % 9000) : 14150000000 + i},Customer ${i},${ZONES[i % 4]},${i % 3 ? 'gold' : 'silver'},${i % 997}\n`;
    if (chunk.length > 1 << 20) {
      fs.writeSync(fd, chunk);
      chunk = '';
    }
  }
  fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  return { bad };
}

async function main(): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-import-bench-'));
  const file = path.join(dir, 'contacts.csv');
  const warm = path.join(dir, 'warm.csv');
  const { bad } = writeCsv(file, ROWS);
  writeCsv(warm, 20_000);
  if (DIALECT === 'postgres' && !(await ensureBenchDatabase())) throw new Error(`PostgreSQL not reachable at ${PG_URL}`);
  const fresh = await freshBenchDatabase(DIALECT, 'contactimport');
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const server = startServerProcess({
    ...fresh.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    CALLCENTER_ADMIN_USERNAME: ADMIN.username,
    CALLCENTER_ADMIN_PASSWORD: ADMIN.password,
  });
  try {
    await waitHealthy(port);
    const { ssid } = await postJson<{ ssid: string }>(port, '/api/v2/auth/login', ADMIN);
    const list = async (name: string) => (await postJson<{ data: { clId: number } }>(port, '/api/v2/contactList/create', { ssid, name })).data.clId;
    const api = `http://127.0.0.1:${port}`;
    // Warm-up: the code paths and statement caches of an import, into a list of its own.
    await uploadContacts(warm, { api, clId: await list('warm-up'), credentials: { ssid } }, { progress: false });
    await new Promise((r) => setTimeout(r, 1000));
    const pid = server.pid!;
    const before = rssMiB(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 50);
    const started = Date.now();
    const cpuBefore = cpuMicros(pid);
    let answer;
    try {
      answer = await uploadContacts(file, { api, clId: await list('bench'), credentials: { ssid } }, { progress: process.stderr.isTTY === true });
    } finally {
      clearInterval(sampler);
    }
    const seconds = (Date.now() - started) / 1000;
    // The server's own CPU time: what the import costs whatever else loads the machine (wall time counts the waits too).
    const cpuSeconds = (cpuMicros(pid) - cpuBefore) / 1e6;
    peak = Math.max(peak, rssMiB(pid));
    const growth = peak - before;
    const countsRight = answer.rows === ROWS && answer.added === ROWS - bad && answer.rejectedCount === bad;
    console.log(
      [
        '| database | rows | added | rejected | seconds | server CPU s | rows/s | server RSS before | peak | growth |',
        '|---|---|---|---|---|---|---|---|---|---|',
        `| ${DIALECT} | ${answer.rows.toLocaleString('en-US')} | ${answer.added.toLocaleString('en-US')} | ${answer.rejectedCount.toLocaleString('en-US')} | **${seconds.toFixed(1)}** (limit ${LIMIT_S}) | ${cpuSeconds.toFixed(1)} | ${Math.round(answer.rows / seconds).toLocaleString('en-US')} | ${before.toFixed(0)} MiB | ${peak.toFixed(0)} MiB | **${growth.toFixed(1)} MiB** (limit ${LIMIT_MB}) |`,
      ].join('\n'),
    );
    if (!countsRight) console.error(`counts: ${JSON.stringify({ ...answer, rejected: undefined })}, expected ${ROWS} rows, ${bad} rejected`);
    return countsRight && seconds < LIMIT_S && growth < LIMIT_MB ? 0 : 1;
  } finally {
    await stopChild(server);
    await fresh.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
