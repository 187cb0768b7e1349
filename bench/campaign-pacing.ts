/**
 * The dialer's pacing in the simulated world of PRODUCT.md §13, side by side
 * in one run: 20 agents, 25 % of dials answered by a person and 10 % by a
 * machine (AMD on, machines hung up), 5 % busy, the rest ringing out; the
 * line answers 5–25 s after the dial; talk 120 s (exponential mean), wrap-up
 * 10 s. One campaign per pacing, each in its own tenant with its own 20
 * agents, the same seed for each world's answers:
 *
 *   - progressive, dialRatio 1 (an agent reserved per call: nobody abandoned);
 *   - VICIdial's ADAPT_TAPERED (bench/adapt-tapered.ts) with its default
 *     settings and a shift that ends with the run, placing its calls through
 *     the same dialer (its decision replaces ours; compliance as for ours);
 *   - predictive at the default limit, 3 % abandoned over the window;
 *   - predictive at 1 %: the abandon limit binds, and the dialer falls back to
 *     progressive whenever the next abandon would pass it.
 *
 * The service runs in this process on a manual clock: every simulated second
 * the simulator (`simulate --outbound`'s model and runner, reading the real
 * stream over loopback HTTP) sends what happened, then the dialer ticks each
 * campaign (`Dialer.tick`, the code the worker runs), and the simulator reads
 * the dials before the next second. Time runs as fast as the machine allows.
 *
 * Prints per pacing: dials per agent-hour, agents' talk share (talk ÷
 * logged-in time) and occupancy ((talk + wrap-up) ÷ logged-in), the abandon
 * rate over the window as the service counts it (campaign/status), and the
 * share of ticks dialled as the fallback.
 *
 *   node --import tsx bench/campaign-pacing.ts [--secs 3600] [--db sqlite|postgres] [--seed 1]
 */
import { parseArgs } from '../src/cli/args.js';
import type { OutboundStats } from '../src/simulator/outbound.js';
import { prepareOutbound, type OutboundSession } from '../src/simulator/outbound-session.js';
import { injectTransport } from '../src/simulator/transport.js';
import { AdaptTapered } from './adapt-tapered.js';
import { benchService, contactList, startedCampaign, tenantWorld, type CampaignWorld } from './campaign-support.js';

const { options } = parseArgs(process.argv.slice(2));
const SECS = Number(options.secs ?? 3600);
const DIALECT = options.db === 'postgres' ? 'postgres' : 'sqlite';
const SEED = Number(options.seed ?? 1);
const AGENTS = 20;
const WORLD = { speed: 1, humanShare: 0.25, machineShare: 0.1, busyShare: 0.05, answerMinSecs: 5, answerMaxSecs: 25, talkSecs: 120, wrapupSecs: 10 };

const START = Date.UTC(2026, 10, 23, 8, 0, 0);
/** ADAPT_TAPERED's shift ends with the run (its taper acts within it), as HHMM of the service's clock (UTC). */
const hhmm = (ms: number) => new Date(ms).getUTCHours() * 100 + new Date(ms).getUTCMinutes();
const SHIFT_END = hhmm(START + SECS * 1000);

const PACINGS: Array<{ name: string; settings: Record<string, unknown>; adapt?: boolean }> = [
  { name: 'progressive, ratio 1', settings: { mode: 'progressive', dialRatio: 1 } },
  // VICIdial's defaults: drop target 3 %, maximum level 3, intensity 0, no differential target, level 1 to start.
  { name: 'VICIdial ADAPT_TAPERED, drop target 3 %', settings: { mode: 'predictive', maxAbandonRate: 3 }, adapt: true },
  { name: 'predictive, limit 3 %', settings: { mode: 'predictive', maxAbandonRate: 3 } },
  { name: 'predictive, limit 1 % (abandon-limited)', settings: { mode: 'predictive', maxAbandonRate: 1 } },
];

interface Run {
  name: string;
  w: CampaignWorld;
  campaignId: number;
  session: OutboundSession;
  ticks: number;
  fallbackTicks: number;
  adapt?: AdaptTapered;
  /** The model's counters and the fallback ticks at half time: the second half is the steady state. */
  half?: { stats: OutboundStats; fallbackTicks: number };
}

async function main(): Promise<void> {
  // A working day's morning, far from midnight (ALL_DAY hours end at 23:59).
  const s = await benchService(DIALECT, 'campaign_pacing', START);
  await s.app.listen({ port: 0, host: '127.0.0.1' });
  const address = s.app.server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const runs: Run[] = [];
  try {
    for (const [i, p] of PACINGS.entries()) {
      const w = await tenantWorld(s, { groups: 1, agentsPerGroup: AGENTS, login: false });
      const clId = await contactList(s, w, Math.max(2000, Math.ceil((SECS / 3600) * AGENTS * 200)), 14_150_000_000 + i * 1_000_000);
      const session = await prepareOutbound({ api: injectTransport(s.app, w.api), baseUrl, creds: w.api, clock: s.clock, config: WORLD, seed: SEED });
      await session.runner.begin();
      session.reader.start();
      await session.reader.connected;
      const campaignId = await startedCampaign(s, w, { clIds: [clId], groupId: w.groupIds[0], amd: true, ...p.settings });
      const adapt = p.adapt
        ? new AdaptTapered({ droppedPercentage: 3, maximumLevel: 3, intensity: 0, dlDiffTarget: 0, latestServerTime: SHIFT_END, startLevel: 1 })
        : undefined;
      runs.push({ name: p.name, w, campaignId, session, ticks: 0, fallbackTicks: 0, adapt });
    }
    const started = Date.now();
    for (let t = 1; t <= SECS; t++) {
      s.clock.advance(1000);
      for (const r of runs) await r.session.runner.tick();
      for (const r of runs) {
        const adapt = r.adapt;
        const m = r.session.model.stats;
        const fig = await s.services.dialer.tick(
          r.w.accountId,
          r.campaignId,
          null,
          // ADAPT_TAPERED reads the day's drops ÷ answers as the service counts them (the window is the run).
          adapt ? (input) => adapt.decide(input, { calls: m.dials, answers: input.humanAnswered, drops: input.abandoned }, hhmm(s.clock.now())) : undefined,
        );
        r.ticks++;
        if (fig?.decision.fallback && fig.decision.dials > 0) r.fallbackTicks++;
      }
      for (const r of runs) await streamCaughtUp(s.services.liveState.sequence.bind(s.services.liveState), r);
      if (t === Math.floor(SECS / 2)) for (const r of runs) r.half = { stats: r.session.model.snapshot(), fallbackTicks: r.fallbackTicks };
      if (t % 600 === 0) console.error(`${t} s simulated in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    const rows: string[] = [];
    const halves: string[] = [];
    for (const r of runs) {
      const end = r.session.model.snapshot();
      const h = r.half!.stats;
      const d = (k: keyof OutboundStats) => end[k] - h[k];
      const halfPct = (x: number) => `${((x / d('loggedInSecs')) * 100).toFixed(1)} %`;
      halves.push(
        `| ${r.name} | ${(d('dials') / ((AGENTS * (SECS - Math.floor(SECS / 2))) / 3600)).toFixed(1)} | ${halfPct(d('talkSecs'))} | ${halfPct(d('talkSecs') + d('wrapupSecs'))} | ` +
          `${d('human') > 0 ? ((d('abandoned') / d('human')) * 100).toFixed(2) : 0} % (${d('abandoned')} of ${d('human')}) | ${(((r.fallbackTicks - r.half!.fallbackTicks) / (SECS - Math.floor(SECS / 2))) * 100).toFixed(1)} % |`,
      );
      const status = (await s.ok('campaign/status', { ssid: r.w.ssid, campaignId: r.campaignId })).data as {
        window: { humanAnswered: number; abandoned: number; abandonRate: number | null };
      };
      await r.session.close();
      const m = r.session.model.stats;
      const agentHours = (AGENTS * SECS) / 3600;
      const pct = (x: number) => `${((x / m.loggedInSecs) * 100).toFixed(1)} %`;
      rows.push(
        `| ${r.name} | ${(m.dials / agentHours).toFixed(1)} | ${pct(m.talkSecs)} | ${pct(m.talkSecs + m.wrapupSecs)} | ` +
          `${status.window.abandonRate ?? 0} % (${status.window.abandoned} of ${status.window.humanAnswered}) | ${((r.fallbackTicks / r.ticks) * 100).toFixed(1)} % | ${m.dials} | ${m.connected} |`,
      );
    }
    console.log(
      `\n${SECS} simulated seconds, ${AGENTS} agents per campaign, ${DIALECT}, seed ${SEED}, ${((Date.now() - started) / 1000).toFixed(0)} s of real time\n`,
    );
    console.log(
      '| pacing | dials / agent-hour | talk share | occupancy (talk + wrap-up) | abandon rate (window) | ticks dialled as fallback | dials | connected |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
    console.log(`\nThe second half (${SECS - Math.floor(SECS / 2)} s, after the warm-up; abandon rate of the half's answers, as the model counted them):\n`);
    console.log('| pacing | dials / agent-hour | talk share | occupancy (talk + wrap-up) | abandon rate | ticks dialled as fallback |');
    console.log('|---|---|---|---|---|---|');
    for (const row of halves) console.log(row);
  } finally {
    await s.close();
  }
}

/** Waits until the simulator has read every change of the account up to now (the dials of this second). */
async function streamCaughtUp(sequence: (accountId: number) => Promise<number>, r: Run): Promise<void> {
  const seq = await sequence(r.w.accountId);
  const deadline = Date.now() + 10_000;
  while (r.session.reader.lastEventId < seq) {
    if (Date.now() > deadline) throw new Error(`the stream did not deliver up to ${seq} (at ${r.session.reader.lastEventId})`);
    await new Promise((res) => setTimeout(res, 1));
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
