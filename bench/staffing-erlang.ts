/**
 * staffing/erlang's arithmetic (PRODUCT.md §14: "traffic up to 1,000 Erlangs
 * answers without overflow in under 10 ms"): the time of one answer — the
 * fewest agents for a target and the figures at that many — at 1,000
 * Erlangs, Erlang C and Erlang A over patiences from 1 minute to a day.
 *
 *   npx tsx bench/staffing-erlang.ts [--rounds 200] [--traffic 1000]
 *
 * Pure computation, one core, no server: each case runs `--rounds` times
 * after a warm-up and reports the median and the 90th percentile in ms (the
 * slowest few of a run measure whatever else the machine was doing). So
 * that the figure means something on a shared machine, the same rounds also
 * time the textbook way of getting Erlang C's pWait for the answer's agents
 * (Σ A^k/k! in log space, term by term) as a yardstick: the ratio of the two,
 * measured side by side, moves far less than either time.
 */
import os from 'node:os';
import { parseArgs } from '../src/cli/args.js';
import { erlangAnswer } from '../src/modules/staffing/erlang-answer.js';

const { options } = parseArgs(process.argv.slice(2));
const ROUNDS = Number(options.rounds ?? 200);
const TRAFFIC = Number(options.traffic ?? 1000);
const AHT = 180;
// offered × aht ÷ (30 × 60) = TRAFFIC.
const OFFERED = (TRAFFIC * 1800) / AHT;

const CASES: Array<{ name: string; patience?: number; seconds: number }> = [
  { name: 'Erlang C, 80 % in 20 s', seconds: 20 },
  { name: 'Erlang A, patience 60 s', patience: 60, seconds: 20 },
  { name: 'Erlang A, patience 300 s', patience: 300, seconds: 20 },
  { name: 'Erlang A, patience 1 h', patience: 3600, seconds: 20 },
  { name: 'Erlang A, patience 1 day', patience: 86400, seconds: 20 },
];

/** The yardstick: Erlang C's pWait for n agents from the Poisson terms, summed in log space. */
function textbookErlangC(n: number, a: number): number {
  const logs: number[] = [];
  let log = 0;
  for (let k = 0; k < n; k++) {
    if (k > 0) log += Math.log(a / k);
    logs.push(log);
  }
  const top = log + Math.log(a / n) + Math.log(n / (n - a));
  const max = Math.max(top, ...logs);
  const sum = logs.reduce((s, l) => s + Math.exp(l - max), 0);
  const last = Math.exp(top - max);
  return last / (sum + last);
}

function time(f: () => void): number {
  const t = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

console.log(`load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`);
console.log(`staffing/erlang at ${TRAFFIC} Erlangs (${OFFERED} calls in 30 min, AHT ${AHT} s), ${ROUNDS} rounds`);
for (const c of CASES) {
  const q = { offered: OFFERED, intervalMinutes: 30, aht: AHT, target: { serviceLevel: 80, seconds: c.seconds }, patience: c.patience };
  const answer = erlangAnswer(q);
  for (let i = 0; i < 20; i++) erlangAnswer(q);
  const ours: number[] = [];
  const yard: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    ours.push(time(() => erlangAnswer(q)));
    yard.push(time(() => textbookErlangC(Math.max(answer.agents, Math.floor(TRAFFIC) + 1), TRAFFIC)));
  }
  const m = quantile(ours, 0.5);
  console.log(
    `${c.name.padEnd(26)} agents ${String(answer.agents).padStart(5)}  median ${m.toFixed(3)} ms  p90 ${quantile(ours, 0.9).toFixed(3)} ms  ` +
      `÷ one textbook Erlang C sum ${(m / quantile(yard, 0.5)).toFixed(1)}×`,
  );
}
