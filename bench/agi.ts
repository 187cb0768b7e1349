/**
 * FastAGI latency (PRODUCT.md §10: answer p99 under 20 ms on loopback).
 *
 *   npx tsx bench/agi.ts [--requests 2000] [--concurrency 1]
 *
 * Starts `callcenter serve` (SQLite, fresh directory) and `callcenter agi` as
 * their own processes, then plays Asterisk: each request opens a TCP
 * connection, sends the agi_* environment, answers every SET VARIABLE with
 * `200 result=1` and waits for the server to close. Callers are a mix: a
 * third blacklisted for the DID, a third with a sticky agent, a third unknown.
 * Reported beside route/decide called directly over HTTP by the same
 * process, so the AGI's own cost reads as the difference of the two.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from '../src/cli/args.js';
import { agiRequest } from '../test/helpers/fastagi.js';
import { freePort, ok, startSwitchService } from './switch-service.js';
import { root } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const REQUESTS = Number(options.requests ?? 2000);
const CONCURRENCY = Number(options.concurrency ?? 1);

/** user + system CPU seconds of a process so far (Linux /proc; 0 when unreadable). */
function cpuSeconds(pid: number): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function timed(n: number, fn: (i: number) => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        const i = next++;
        const t0 = process.hrtime.bigint();
        await fn(i);
        out.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  return out;
}

const s = await startSwitchService('sqlite', 'agi');
const agiPort = await freePort();
const agi = spawn(
  process.execPath,
  ['bin/callcenter.js', 'agi', '--listen', `127.0.0.1:${agiPort}`, '--api', s.api, '--user-id', s.sw.userId, '--token', s.sw.token],
  {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  },
);
try {
  await new Promise<void>((resolve, reject) => {
    agi.stderr!.on('data', (d: Buffer) => (String(d).includes('listening') ? resolve() : process.stderr.write(d)));
    agi.once('exit', (code) => reject(new Error(`agi exited ${code}`)));
  });
  const did = '918000000001';
  await ok(s, 'did/create', { did });
  const group = await ok<{ data: { groupId: number } }>(s, 'group/create', { name: 'sales' });
  const role = await ok<{ data: { roleId: number } }>(s, 'role/create', { name: 'agents', permissions: [] });
  const agent = await ok<{ data: { agentId: number } }>(s, 'Agent/create', {
    name: 'Asha',
    email: 'asha@example.com',
    password: 'agent-password-1',
    phone: '9800000001',
    call_pass: '12345678',
    dest_type: 'SIP',
    dest_value: 'sip:5001@pbx',
    role: role.data.roleId,
    group: { [String(group.data.groupId)]: { receive_call: 'Y' } },
  });
  await ok(s, 'events/ingest', { events: [{ eventId: 'login', type: 'agent.login', agentId: agent.data.agentId, ts: Date.now() / 1000 }] });
  const callers = Array.from({ length: 300 }, (_, i) => `9198${String(10_000_000 + i)}`);
  for (let i = 0; i < 100; i++) await ok(s, 'Directory/Blacklist', { contact: callers[i], DID: [did] });
  for (let i = 100; i < 200; i++) await ok(s, 'Directory/setSticky', { contact: callers[i], agentId: agent.data.agentId, type: 'all', expiry: -1 });

  // Warm-up (JIT, connections, switch/config), then the measured runs.
  await timed(200, async (i) => void (await agiRequest(agiPort, { callerid: callers[i % 300]!, dnid: did, arg1: String(group.data.groupId) })));
  let errors = 0;
  const cpu0 = { agi: cpuSeconds(agi.pid!), service: cpuSeconds(s.child.pid!) };
  const agiMs = await timed(REQUESTS, async (i) => {
    const r = await agiRequest(agiPort, { callerid: callers[i % 300]!, dnid: did, arg1: String(group.data.groupId) });
    if (r.variables.CC_ERROR !== '0') errors++;
  });
  const cpu = { agi: cpuSeconds(agi.pid!) - cpu0.agi, service: cpuSeconds(s.child.pid!) - cpu0.service };
  const directMs = await timed(REQUESTS, async (i) => {
    const res = await fetch(`${s.api}/api/v2/route/decide`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ caller: callers[i % 300], did, groupId: group.data.groupId, ...s.sw }),
    });
    await res.text();
  });
  const row = (name: string, xs: number[]) =>
    `| ${name} | ${xs.length} | ${pct(xs, 50).toFixed(2)} | ${pct(xs, 95).toFixed(2)} | ${pct(xs, 99).toFixed(2)} | ${Math.max(...xs).toFixed(2)} |`;
  console.log(`\nconcurrency ${CONCURRENCY}, SQLite, loopback\n`);
  console.log('| path | requests | p50 ms | p95 ms | p99 ms | max ms |');
  console.log('|---|---|---|---|---|---|');
  console.log(row('FastAGI request (connect, environment, 6 × SET VARIABLE, close)', agiMs));
  console.log(row('route/decide over HTTP (same callers)', directMs));
  const perReq = (secs: number) => ((secs * 1000) / REQUESTS).toFixed(2);
  console.log(
    `\nCPU per AGI request: agi process ${perReq(cpu.agi)} ms, service ${perReq(cpu.service)} ms (the time a request costs on an idle machine, besides the loopback); load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  console.log(`\nAGI answers with CC_ERROR=1: ${errors}; p99 target < 20 ms: ${pct(agiMs, 99) < 20 ? 'met' : 'NOT met'}`);
} finally {
  agi.kill('SIGTERM');
  await s.stop();
}
