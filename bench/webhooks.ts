/**
 * Push-report webhook benchmark (PRODUCT.md §9 targets), in one run against
 * a bare node:http receiver started by this script (answers 200 to every
 * POST, GODBLESSYOU to the verification GET):
 *  - events/ingest with one active subscription vs without: alternating
 *    phases (A without, B with, in the order AB BA AB…) on one server, twice: on a node that only
 *    writes the outbox (WEBHOOK_DELIVERY=0: the ingest path's own cost) and
 *    on a node that also delivers meanwhile on the same core (end to end;
 *    the outbox is drained after each B phase so an A phase never pays for
 *    B's deliveries). Batches of 500 events, every other event `call.ended`
 *    (250 reports per batch: a heavier report load than real traffic).
 *    Target ratio ≥ 0.9;
 *  - a burst of 10,000 ended calls (ingested as fast as possible) until the
 *    receiver has every report: seconds (target ≤ 30 s on SQLite) and
 *    deliveries per second (first to last delivery), on each database.
 *
 *   npx tsx bench/webhooks.ts [--db sqlite|postgres|both] [--duration 5] [--rounds 2] [--burst 10000]
 *
 * The server runs pinned to core 0, the senders and the receiver on core 1.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from '../src/cli/args.js';
import type { Dialect } from '../src/db/types.js';
import { cpuMicros, ensureBenchDatabase, freshBenchDatabase, postJson, startServerProcess, startChild, stopChild, waitHealthy } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const DURATION = Number(options.duration ?? 5);
const ROUNDS = Number(options.rounds ?? 2);
const BURST = Number(options.burst ?? 10_000);
const SENDERS = 4;
const BATCH_CALLS = 250;
const ADMIN = { username: 'operator', password: 'operator-password' };

/** The bare receiver: counts POSTs per path and when the last one came. */
async function startReceiver() {
  const counts = new Map<string, number>();
  const firstAt = new Map<string, number>();
  const lastAt = new Map<string, number>();
  const server = http.createServer((req, res) => {
    req.on('data', () => undefined);
    req.on('end', () => {
      if (req.method !== 'POST') return void res.end('GODBLESSYOU');
      const key = req.url ?? '';
      const now = performance.now();
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (!firstAt.has(key)) firstAt.set(key, now);
      lastAt.set(key, now);
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    count: (path: string) => counts.get(path) ?? 0,
    firstAt: (path: string) => firstAt.get(path) ?? NaN,
    lastAt: (path: string) => lastAt.get(path) ?? NaN,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

let seq = 0;
function batch(tag: string, calls: number): unknown[] {
  const ts = Date.now() / 1000;
  const out: unknown[] = [];
  for (let i = 0; i < calls; i++) {
    const callId = `${tag}-${seq++}`;
    out.push({ eventId: `${callId}q`, type: 'call.queued', ts, callId, caller: '919800000001', did: '18005550100' });
    out.push({ eventId: `${callId}e`, type: 'call.ended', ts, callId, reason: 'abandoned' });
  }
  return out;
}

async function tenant(port: number, op: string, name: string, rx: Receiver | null): Promise<string> {
  const created = await postJson(port, '/api/v2/account/create', { ssid: op, username: name, password: 'bench-password', name });
  if (created.status !== 'success') throw new Error(JSON.stringify(created));
  const { ssid } = await postJson<{ ssid: string }>(port, '/api/v2/auth/login', { username: name, password: 'bench-password' });
  if (rx) {
    const hook = await postJson<{ data: { status: string } }>(port, '/api/v2/webhook/create', { ssid, url: rx.url(`/${name}`) });
    if (hook.data?.status !== 'active') throw new Error(`subscription not active: ${JSON.stringify(hook)}`);
  }
  return ssid;
}

/** Ended calls per second ingested by SENDERS concurrent senders for DURATION seconds. */
async function ingestPhase(port: number, ssid: string, tag: string, pid?: number): Promise<{ calls: number; cps: number; cpuUs: number }> {
  let calls = 0;
  const cpu0 = cpuMicros(pid);
  const until = Date.now() + DURATION * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      while (Date.now() < until) {
        const out = await postJson<{ data?: { accepted: number } }>(port, '/api/v2/events/ingest', { ssid, events: batch(tag, BATCH_CALLS) });
        if (out.data?.accepted !== BATCH_CALLS * 2) throw new Error(`ingest failed: ${JSON.stringify(out).slice(0, 300)}`);
        calls += BATCH_CALLS;
      }
    }),
  );
  return { calls, cps: calls / ((performance.now() - t0) / 1000), cpuUs: (cpuMicros(pid) - cpu0) / calls };
}

async function waitDelivered(rx: Receiver, path: string, n: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (rx.count(path) < n) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

function startServer(dialect: Dialect, env: Record<string, string>, delivery: boolean) {
  const port = (dialect === 'sqlite' ? 18_196 : 18_198) + (delivery ? 0 : 1);
  const child = startServerProcess({
    ...env,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    WEBHOOK_ALLOW_PRIVATE: '1',
    WEBHOOK_DELIVERY: delivery ? '1' : '0',
    CALLCENTER_ADMIN_USERNAME: ADMIN.username,
    CALLCENTER_ADMIN_PASSWORD: ADMIN.password,
  });
  return { port, child };
}

/**
 * The HTTP floor under the delivery rate: a process pinned where the server
 * runs sends `n` signed-looking 1 kB POSTs to the same receiver with the
 * same client settings (undici Agent, 64 connections, rounds of 200) and
 * nothing else — no database, no reports. Answers POSTs per second, first
 * to last, as the burst's rate is measured.
 */
async function bareRate(rx: Receiver, path: string, n: number): Promise<number> {
  const code = `
    import { Agent } from 'undici';
    const agent = new Agent({ connections: 64, keepAliveTimeout: 30000 });
    const body = JSON.stringify({ pad: 'x'.repeat(1000) });
    const headers = { 'content-type': 'application/json', 'webhook-id': 'msg_bare', 'webhook-timestamp': '0', 'webhook-signature': 'v1,' + 'A'.repeat(44) };
    for (let i = 0; i < ${n}; i += 200)
      await Promise.all(Array.from({ length: Math.min(200, ${n} - i) }, async () => {
        const res = await agent.request({ origin: ${JSON.stringify(new URL(rx.url(path)).origin)}, path: ${JSON.stringify(path)}, method: 'POST', headers, body, signal: AbortSignal.timeout(10000) });
        for await (const _ of res.body);
      }));
    await agent.close();`;
  const child = startChild(process.execPath, ['--input-type=module', '-e', code], {});
  const exited = new Promise((r) => child.once('exit', r));
  const ok = await waitDelivered(rx, path, n, 300_000);
  await exited;
  return ok ? n / ((rx.lastAt(path) - rx.firstAt(path)) / 1000) : NaN;
}

const mean = (x: number[]) => x.reduce((s, v) => s + v, 0) / x.length;

/** Alternating A (no subscription) and B (one) phases; answers the mean rates. */
/**
 * Alternating A (no subscription) and B (one) phases; answers the mean rates and the mean server CPU per
 * ended call (utime + stime of the server process: steadier than the rates when the machine is shared).
 */
async function ratioPhases(
  port: number,
  tag: string,
  rx: Receiver,
  drain: boolean,
  pid?: number,
): Promise<{ a: number; b: number; cpuA: number; cpuB: number }> {
  const { ssid: op } = await postJson<{ ssid: string }>(port, '/api/v2/auth/login', ADMIN);
  const without = await tenant(port, op, `plain-${tag}`, null);
  const withHook = await tenant(port, op, `hooked-${tag}`, rx);
  await ingestPhase(port, without, `warm-${tag}`); // JIT, prepared statements
  const a: number[] = [];
  const b: number[] = [];
  const cpuA: number[] = [];
  const cpuB: number[] = [];
  let queued = 0;
  // A B, B A, A B…: the tables grow during the run, so neither kind of phase always runs on the bigger database.
  for (let r = 0; r < ROUNDS; r++) {
    for (const kind of r % 2 === 0 ? ['a', 'b'] : ['b', 'a']) {
      if (kind === 'a') {
        const phase = await ingestPhase(port, without, `a${r}-${tag}`, pid);
        a.push(phase.cps);
        cpuA.push(phase.cpuUs);
        continue;
      }
      const phase = await ingestPhase(port, withHook, `b${r}-${tag}`, pid);
      b.push(phase.cps);
      cpuB.push(phase.cpuUs);
      queued += phase.calls;
      if (drain && !(await waitDelivered(rx, `/hooked-${tag}`, queued, 300_000))) throw new Error('the outbox did not drain');
    }
  }
  return { a: mean(a), b: mean(b), cpuA: mean(cpuA), cpuB: mean(cpuB) };
}

async function run(dialect: Dialect, rx: Receiver): Promise<string[]> {
  const lines: string[] = [];
  const ingestOnly = await freshBenchDatabase(dialect, 'webhooks_ingest');
  const node = startServer(dialect, ingestOnly.env, false);
  try {
    await waitHealthy(node.port);
    const r = await ratioPhases(node.port, `${dialect}-ingest-only`, rx, false, node.child.pid);
    lines.push(
      `| ${dialect} | ingest path only (WEBHOOK_DELIVERY=0): ended calls/s without / with one subscription | ${r.a.toFixed(0)} / ${r.b.toFixed(0)} (ratio ${(r.b / r.a).toFixed(2)}, target ≥ 0.9) |`,
      `| ${dialect} | ingest path only: server CPU per ended call without / with | ${r.cpuA.toFixed(1)} / ${r.cpuB.toFixed(1)} µs (ratio without ÷ with ${(r.cpuA / r.cpuB).toFixed(2)}) |`,
    );
  } finally {
    await stopChild(node.child);
    await ingestOnly.drop();
  }

  const db = await freshBenchDatabase(dialect, 'webhooks');
  const { port, child: server } = startServer(dialect, db.env, true);
  try {
    await waitHealthy(port);
    const r = await ratioPhases(port, dialect, rx, true, server.pid);
    lines.push(
      `| ${dialect} | delivering meanwhile on the same core: ended calls/s without / with | ${r.a.toFixed(0)} / ${r.b.toFixed(0)} (ratio ${(r.b / r.a).toFixed(2)}) |`,
      `| ${dialect} | delivering meanwhile: server CPU per ended call without / with (the B phases include the deliveries made meanwhile) | ${r.cpuA.toFixed(1)} / ${r.cpuB.toFixed(1)} µs (ratio ${(r.cpuA / r.cpuB).toFixed(2)}) |`,
    );
    const { ssid: op } = await postJson<{ ssid: string }>(port, '/api/v2/auth/login', ADMIN);

    // The burst: 10,000 ended calls as fast as they are acknowledged, to a third tenant.
    const burst = await tenant(port, op, `burst-${dialect}`, rx);
    const burstPath = `/burst-${dialect}`;
    const cpu0 = cpuMicros(server.pid);
    const t0 = performance.now();
    let sent = 0;
    await Promise.all(
      Array.from({ length: SENDERS }, async () => {
        while (sent < BURST) {
          const n = Math.min(BATCH_CALLS, BURST - sent);
          sent += n;
          const out = await postJson<{ data?: { accepted: number } }>(port, '/api/v2/events/ingest', { ssid: burst, events: batch('burst', n) });
          if (out.data?.accepted !== n * 2) throw new Error(`burst ingest failed: ${JSON.stringify(out).slice(0, 300)}`);
        }
      }),
    );
    const ingested = (performance.now() - t0) / 1000;
    const ok = await waitDelivered(rx, burstPath, BURST, 600_000);
    const total = (performance.now() - t0) / 1000;
    const cpuPerCall = (cpuMicros(server.pid) - cpu0) / BURST;
    const rate = BURST / ((rx.lastAt(burstPath) - rx.firstAt(burstPath)) / 1000);
    lines.push(
      `| ${dialect} | burst of ${BURST} ended calls: all delivered after | ${ok ? `${total.toFixed(1)} s` : 'NOT within 600 s'} (ingest took ${ingested.toFixed(1)} s)${dialect === 'sqlite' ? ', target ≤ 30 s' : ''} |`,
      `| ${dialect} | deliveries per second (first to last of the burst) | ${rate.toFixed(0)} |`,
      `| ${dialect} | the same number of bare POSTs (undici, 64 connections, 200 at a time, 1 kB bodies) from a process on the server's core: per second | ${(await bareRate(rx, `/bare-${dialect}`, BURST)).toFixed(0)} |`,
      `| ${dialect} | server CPU per call of the burst, its ingest and delivery (utime + stime; steadier than the rates on a shared machine) | ${cpuPerCall.toFixed(0)} µs |`,
    );
  } finally {
    await stopChild(server);
    await db.drop();
  }
  return lines;
}

async function main(): Promise<void> {
  const dialects: Dialect[] = options.db === 'sqlite' ? ['sqlite'] : options.db === 'postgres' ? ['postgres'] : ['sqlite', 'postgres'];
  const rx = await startReceiver();
  const lines = ['| database | measure | value |', '|---|---|---|'];
  try {
    for (const d of dialects) {
      if (d === 'postgres' && !(await ensureBenchDatabase())) {
        lines.push('| postgres | (not reachable: skipped) | |');
        continue;
      }
      lines.push(...(await run(d, rx)));
    }
  } finally {
    await rx.close();
  }
  console.log(`\nWebhooks (${DURATION} s phases × ${ROUNDS} rounds, ${SENDERS} senders, ${BATCH_CALLS} ended calls per batch):\n`);
  console.log(lines.join('\n'));
}

await main();
