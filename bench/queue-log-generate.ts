/**
 * A realistic Asterisk queue_log for bench/queue-log.ts (and by hand:
 * `npx tsx bench/queue-log-generate.ts --lines 1000000 --out /tmp/queue_log`).
 *
 * Working days of 09:00–19:00 ending yesterday, three queues, `agents`
 * members (PJSIP/5001…, a fifth of them as Local/…@from-queue/n) added at
 * the start of the day and removed at its end, Poisson arrivals sized to
 * the agents, up to two unanswered offers (RINGNOANSWER) before a CONNECT,
 * COMPLETECALLER / COMPLETEAGENT / TRANSFER / ATTENDEDTRANSFER, abandons and
 * timeouts, pauses with a reason between calls, a DID line before each
 * ENTERQUEUE, and the odd line Asterisk writes that the importer skips.
 * Agents are never offered two calls at once, so every line is valid.
 */
import fs from 'node:fs';
import { parseArgs } from '../src/cli/args.js';

export const QUEUES = ['sales', 'support', 'billing'];

export function memberName(i: number): string {
  const ext = 5001 + i;
  return i % 5 === 4 ? `Local/${ext}@from-queue/n` : `PJSIP/${ext}`;
}

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Writes about `target` lines; answers the number written and the days covered. */
export function generateQueueLog(target: number, out: string, agents = 50, seed = 7): { lines: number; days: number; firstDay: number } {
  const rand = rng(seed);
  const between = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const fd = fs.openSync(out, 'w');
  let written = 0;
  let callSeq = 0;
  const perDay = 660 * agents; // lines a day yields, roughly (measured: 33,000 with 50 agents)
  const days = Math.max(1, Math.ceil((target / perDay) * 1.2));
  const today = Math.floor(Date.now() / 1000 / 86400) * 86400;
  const firstDay = today - days * 86400;
  let d = 0;
  for (; d < days && written < target; d++) {
    const day = firstDay + d * 86400;
    const open = day + 9 * 3600;
    const close = day + 19 * 3600;
    const lines: Array<[number, number, string]> = [];
    let n = 0;
    const line = (t: number, callId: string, queue: string, agent: string, verb: string, data: string) =>
      lines.push([t, n++, `${t}|${callId}|${queue}|${agent}|${verb}|${data}`]);
    const free = new Array<number>(agents).fill(open);
    for (let i = 0; i < agents; i++) for (const q of QUEUES) line(open - 60 + i, 'MANAGER', q, memberName(i), 'ADDMEMBER', '');
    let t = open;
    while (t < close - 600) {
      t += Math.max(1, Math.round(-Math.log(1 - rand()) * (200 / agents) * 1.1));
      const queue = QUEUES[between(0, 2)]!;
      const callId = `${t}.${++callSeq}`;
      const caller = `9198${String(between(10_000_000, 99_999_999))}`;
      line(t, callId, queue, 'NONE', 'DID', `91800000000${between(1, 3)}`);
      line(t, callId, queue, 'NONE', 'ENTERQUEUE', `|${caller}|1`);
      let now = t;
      let answered = false;
      for (let attempt = 0; attempt < 3 && !answered; attempt++) {
        const start = now + between(0, 2);
        const candidates = [];
        for (let i = 0; i < agents; i++) if (free[i]! <= start) candidates.push(i);
        if (candidates.length === 0 || now - t > 120) break;
        const i = candidates[between(0, candidates.length - 1)]!;
        const member = memberName(i);
        if (attempt < 2 && rand() < 0.25) {
          const ring = between(8, 15);
          line(start + ring, callId, queue, member, 'RINGNOANSWER', String(ring * 1000));
          free[i] = start + ring + 1;
          now = start + ring;
          continue;
        }
        const ring = between(2, 8);
        const talk = between(20, 400);
        const answer = start + ring;
        line(answer, callId, queue, member, 'CONNECT', `${answer - t}|${callId}1|${ring}`);
        const end = answer + talk;
        const r = rand();
        if (r < 0.5) line(end, callId, queue, member, 'COMPLETECALLER', `${answer - t}|${talk}|1`);
        else if (r < 0.9) line(end, callId, queue, member, 'COMPLETEAGENT', `${answer - t}|${talk}|1`);
        else if (r < 0.97) line(end, callId, queue, member, 'TRANSFER', `6000|from-internal|${answer - t}|${talk}|1`);
        else line(end, callId, queue, member, 'ATTENDEDTRANSFER', `BRIDGE|${callId}b|${answer - t}|${talk}|1`);
        free[i] = end + 1;
        if (rand() < 0.05) {
          const back = end + between(300, 900);
          line(end + 1, 'NONE', 'NONE', member, 'PAUSE', rand() < 0.5 ? 'lunch' : 'training');
          line(back, 'NONE', 'NONE', member, 'UNPAUSE', '');
          free[i] = back + 1;
        }
        answered = true;
      }
      if (!answered) {
        const wait = Math.max(now - t, 0) + between(5, 60);
        if (rand() < 0.8) line(t + wait, callId, queue, 'NONE', 'ABANDON', `1|1|${wait}`);
        else line(t + wait, callId, queue, 'NONE', 'EXITWITHTIMEOUT', `1|1|${wait}`);
      }
      if (rand() < 0.002) line(t, 'NONE', 'NONE', 'NONE', 'CONFIGRELOAD', '');
    }
    const last = Math.max(close, ...free) + 60;
    for (let i = 0; i < agents; i++) for (const q of QUEUES) line(last + i, 'MANAGER', q, memberName(i), 'REMOVEMEMBER', '');
    lines.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const take = lines.slice(0, target - written);
    fs.writeSync(fd, `${take.map((l) => l[2]).join('\n')}\n`);
    written += take.length;
  }
  fs.closeSync(fd);
  return { lines: written, days: d, firstDay };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { options } = parseArgs(process.argv.slice(2));
  const r = generateQueueLog(Number(options.lines ?? 1_000_000), options.out ?? '/tmp/queue_log', Number(options.agents ?? 50));
  console.log(JSON.stringify(r));
}
