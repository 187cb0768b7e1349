/**
 * A fast stand-in for bench/campaign-pacing.ts's predictive campaigns: the
 * same switch model (`simulate --outbound`'s OutboundModel, §13's world) and
 * the same pacing decision (pacing.ts), with what the dialer reads from the
 * database rebuilt from the model's events in memory, one tick a simulated
 * second. No service, no database: a two-hour run takes seconds, so pacing
 * rules can be tried over many seeds before the real benchmark measures the
 * one kept. What it leaves out: the service's own rounding of event times to
 * whole seconds in a few places, the stream's delivery, and the list's
 * contacts (every dial is a fresh number). The recent dials are picked as
 * the service reads them (DialerRepository.samplesOf): newest first, dials
 * of the same second by call id, descending, and the call ids are the
 * service's shape (`obd-` and 32 hex digits, pseudo-random from the seed),
 * so which dials of a second make the 200 is decided as there, not by the
 * order they were placed in.
 *
 * Prints per run (up to 10 seeds) and over all runs: talk share, its second
 * half, the abandon rate, and the highest rate the window reached once 100
 * people had answered (PRODUCT.md §13: never over the limit from then on).
 *
 *   node --import tsx bench/pacing-replay.ts [--secs 7200] [--seeds 1,2,3 | 1-96] [--limit 3,1]
 */
import { parseArgs } from '../src/cli/args.js';
import { ANSWER_SAMPLE, humanRateOf, learned } from '../src/modules/campaign/dialer.js';
import { sampleOf, type RecentDial } from '../src/modules/campaign/dial-sample.js';
import { decideDials, type PacingDecision, type PacingInput } from '../src/modules/campaign/pacing.js';
import { DEFAULT_OUTBOUND, OutboundModel } from '../src/simulator/outbound.js';
import type { SimEvent } from '../src/simulator/types.js';

interface CallView {
  dialledAt: number;
  connectedAt: number | null;
  answeredBy: string | null;
  agentAnsweredAt: number | null;
  endedAt: number | null;
  outcome: string | null;
  predictive: boolean;
  agentId: number | null;
  wrapSecs: number;
}
interface AgentView {
  callId: string | null;
  callAt: number | null;
  wrapupAt: number | null;
  wrapCall: string | null;
  ringCall: string | null;
}

export interface ReplayResult {
  seed: number;
  limit: number;
  talkShare: number;
  occupancy: number;
  humans: number;
  abandoned: number;
  rate: number;
  fallbackTicks: number;
  dialsPerAgentHour: number;
  half: { talkShare: number; humans: number; abandoned: number };
  /** The highest abandon rate of the window once 100 people had answered (PRODUCT.md §13: never over the limit). */
  maxRate: number;
}

/** Call ids of the service's shape (`obd-` and a UUID's 32 hex digits, dashes aside), drawn from `seed`: each run the same. */
export function callIds(seed: number): () => string {
  // mulberry32
  let a = (seed * 0x9e3779b1) >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0).toString(16).padStart(8, '0');
  };
  return () => {
    const h = next() + next() + next() + next();
    return `obd-${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  };
}

/**
 * The last `n` dials with a result, as the service's read orders them
 * (dialled_at descending, then call id descending in code-unit order):
 * `order` holds the call ids in the order they were placed, each second's
 * dials together.
 */
export function recentDials<T extends { dialledAt: number; connectedAt: number | null; endedAt: number | null }>(
  order: readonly string[],
  calls: ReadonlyMap<string, T>,
  n: number,
): T[] {
  const out: T[] = [];
  let end = order.length;
  while (end > 0 && out.length < n) {
    const at = calls.get(order[end - 1]!)!.dialledAt;
    let start = end - 1;
    while (start > 0 && calls.get(order[start - 1]!)!.dialledAt === at) start--;
    const second = order.slice(start, end).sort((x, y) => (x < y ? 1 : x > y ? -1 : 0));
    for (const id of second) {
      const k = calls.get(id)!;
      if (out.length < n && (k.endedAt !== null || k.connectedAt !== null)) out.push(k);
    }
    end = start;
  }
  return out;
}

/** One run: `agents` agents, `secs` simulated seconds, the predictive campaign at `limit` % with `decide` as its pacing. */
export function replay(opts: { seed: number; secs: number; agents: number; limit: number; decide?: (i: PacingInput) => PacingDecision }): ReplayResult {
  const start = 1_790_000_000;
  const agentIds = Array.from({ length: opts.agents }, (_, i) => i + 1);
  const model = new OutboundModel({ ...DEFAULT_OUTBOUND }, [{ groupId: 1, agentIds }], { seed: opts.seed, start, runId: 'r' });
  const calls = new Map<string, CallView>();
  const open = new Set<string>();
  const agents = new Map<number, AgentView>(agentIds.map((id) => [id, { callId: null, callAt: null, wrapupAt: null, wrapCall: null, ringCall: null }]));
  const order: string[] = [];
  let humans = 0;
  let abandoned = 0;
  let maxRate = 0;
  let fallbackTicks = 0;
  let seq = 0;
  const nextCallId = callIds(opts.seed);
  let half: ReplayResult['half'] | undefined;
  let halfStats: ReturnType<OutboundModel['snapshot']> | undefined;
  let halfH = 0;
  let halfA = 0;

  const apply = (events: SimEvent[]) => {
    for (const e of events) {
      const ts = Math.floor(e.ts);
      const c = e.callId !== undefined ? calls.get(e.callId) : undefined;
      const a = e.agentId !== undefined ? agents.get(e.agentId) : undefined;
      switch (e.type) {
        case 'call.connected':
          if (c) {
            c.connectedAt = ts;
            c.answeredBy = e.answeredBy ?? null;
            if (c.answeredBy === 'human') humans++;
          }
          break;
        case 'call.ringing':
          if (a) a.ringCall = e.callId!;
          break;
        case 'call.answered':
          if (c) c.agentAnsweredAt = ts;
          if (a) Object.assign(a, { ringCall: null, callId: e.callId!, callAt: e.ts });
          break;
        case 'call.ended':
          if (c && c.endedAt === null) {
            c.endedAt = ts;
            c.outcome = e.reason === 'abandoned' ? 'abandoned' : e.reason === 'completed' ? 'answered' : (e.reason ?? 'failed');
            if (c.outcome === 'abandoned') {
              abandoned++;
              if (humans >= 100) maxRate = Math.max(maxRate, (abandoned / humans) * 100);
            }
            open.delete(e.callId!);
            for (const ag of agents.values()) if (ag.callId === e.callId) Object.assign(ag, { callId: null, callAt: null, wrapupAt: e.ts, wrapCall: e.callId });
          }
          break;
        case 'agent.wrapup.start':
          if (a && a.wrapupAt === null) a.wrapupAt = e.ts;
          break;
        case 'agent.wrapup.end':
          if (a) {
            if (a.wrapCall !== null && a.wrapupAt !== null) {
              const wc = calls.get(a.wrapCall);
              if (wc) wc.wrapSecs += Math.max(0, Math.round(e.ts - a.wrapupAt));
            }
            Object.assign(a, { wrapupAt: null, wrapCall: null });
          }
          break;
        default:
          break;
      }
    }
  };

  apply(model.login());
  const decide = opts.decide ?? decideDials;
  for (let t = start + 1; t <= start + opts.secs; t++) {
    apply(model.advanceTo(t));
    // What the dialer reads (dialer.ts tickAccount), rebuilt from the events.
    const openCalls = [...open].map((id) => calls.get(id)!);
    const held = new Set(openCalls.filter((k) => !k.predictive && k.agentId !== null).map((k) => k.agentId!));
    const free: number[] = [];
    const talking: number[] = [];
    const wrapping: number[] = [];
    for (const [id, a] of agents) {
      if (held.has(id)) continue;
      if (a.callId !== null) talking.push(Math.max(0, t - (a.callAt ?? t)));
      else if (a.wrapupAt !== null) wrapping.push(Math.max(0, t - a.wrapupAt));
      else if (a.ringCall === null) free.push(id);
    }
    const pending = openCalls.filter((k) => k.predictive && k.agentAnsweredAt === null && k.outcome === null);
    const recent = recentDials(order, calls, ANSWER_SAMPLE);
    // The dialer's own learning (dialer.ts), over the same fields.
    const rows: RecentDial[] = recent.map((r) => ({
      dialled_at: r.dialledAt,
      connected_at: r.connectedAt,
      answered_by: r.answeredBy,
      agent_answered_at: r.agentAnsweredAt,
      ended_at: r.endedAt,
      wrap_secs: r.wrapSecs,
    }));
    const sample = sampleOf(rows);
    const { outcomes, talkSecs, wrapSecs } = learned(sample);
    const reserved = new Set(openCalls.filter((k) => !k.predictive && k.agentId !== null).map((k) => k.agentId!));
    const input: PacingInput = {
      mode: 'predictive',
      freeAgents: free.length,
      reservedAgents: reserved.size,
      lines: openCalls.length,
      pendingPredictive: pending.length,
      maxLines: 50,
      dialRatio: 1,
      humanAnswered: humans,
      abandoned,
      maxAbandonRate: opts.limit,
      humanRate: humanRateOf(sample),
      outlook: {
        talking,
        wrapping,
        ringing: pending.filter((k) => k.connectedAt === null).map((k) => Math.max(0, t - k.dialledAt)),
        waiting: pending.filter((k) => k.connectedAt !== null).length,
        outcomes,
        talkSecs,
        wrapSecs,
      },
    };
    const d = decide(input);
    if (d.fallback && d.dials > 0) fallbackTicks++;
    const progressiveAgents = [...free];
    for (let n = 0; n < d.dials; n++) {
      const agentId = d.as === 'progressive' ? progressiveAgents.shift() : undefined;
      if (d.as === 'progressive' && agentId === undefined) break;
      const callId = nextCallId();
      seq++;
      calls.set(callId, {
        dialledAt: t,
        connectedAt: null,
        answeredBy: null,
        agentAnsweredAt: null,
        endedAt: null,
        outcome: null,
        predictive: d.as === 'predictive',
        agentId: agentId ?? null,
        wrapSecs: 0,
      });
      open.add(callId);
      order.push(callId);
      apply(
        model.originate(
          {
            callId,
            campaignId: '1',
            customer: String(919800000000 + seq),
            did: null,
            groupId: 1,
            ...(agentId !== undefined ? { agentId } : {}),
            ringSecs: 25,
            amd: true,
            machineAction: 'hangup',
            connectSecs: 2,
          },
          t,
        ),
      );
    }
    if (t === start + Math.floor(opts.secs / 2)) {
      halfStats = model.snapshot();
      halfH = humans;
      halfA = abandoned;
    }
  }
  apply(model.shutdown(start + opts.secs));
  const s = model.stats;
  if (halfStats) {
    half = {
      talkShare: ((s.talkSecs - halfStats.talkSecs) / (s.loggedInSecs - halfStats.loggedInSecs)) * 100,
      humans: humans - halfH,
      abandoned: abandoned - halfA,
    };
  }
  return {
    seed: opts.seed,
    limit: opts.limit,
    talkShare: (s.talkSecs / s.loggedInSecs) * 100,
    occupancy: ((s.talkSecs + s.wrapupSecs) / s.loggedInSecs) * 100,
    humans,
    abandoned,
    rate: humans > 0 ? (abandoned / humans) * 100 : 0,
    fallbackTicks,
    dialsPerAgentHour: s.dials / ((opts.agents * opts.secs) / 3600),
    half: half ?? { talkShare: 0, humans: 0, abandoned: 0 },
    maxRate,
  };
}

/** "1,2,3" or "1-96". */
function seedList(text: string): number[] {
  const range = /^(\d+)-(\d+)$/.exec(text);
  if (range) return Array.from({ length: Number(range[2]) - Number(range[1]) + 1 }, (_, k) => Number(range[1]) + k);
  return text.split(',').map(Number);
}

function main(): void {
  const { options } = parseArgs(process.argv.slice(2));
  const secs = Number(options.secs ?? 7200);
  const seeds = seedList(String(options.seeds ?? '1,2,3'));
  const limits = String(options.limit ?? '3,1')
    .split(',')
    .map(Number);
  const pct = (x: number) => `${x.toFixed(1)} %`;
  const rows: string[] = [];
  const summary: string[] = [];
  for (const limit of limits) {
    const runs = seeds.map((seed) => replay({ seed, secs, agents: 20, limit }));
    for (const r of runs)
      rows.push(
        `| ${limit} % | ${r.seed} | ${pct(r.talkShare)} | ${pct(r.half.talkShare)} | ${pct(r.occupancy)} | ${r.rate.toFixed(2)} % (${r.abandoned} of ${r.humans}) | ${r.maxRate.toFixed(2)} % | ${r.fallbackTicks} | ${r.dialsPerAgentHour.toFixed(1)} |`,
      );
    const mean = (f: (r: ReplayResult) => number) => runs.reduce((a, r) => a + f(r), 0) / runs.length;
    const over = runs.filter((r) => r.maxRate > limit).length;
    summary.push(
      `| ${limit} % | ${runs.length} | ${pct(mean((r) => r.talkShare))} | ${pct(mean((r) => r.half.talkShare))} | ${mean((r) => r.rate).toFixed(2)} % | ${Math.max(...runs.map((r) => r.maxRate)).toFixed(2)} % | ${over} |`,
    );
  }
  if (seeds.length <= 10) {
    console.log('| limit | seed | talk share | 2nd half | occupancy | abandon rate | highest rate after 100 people | fallback ticks | dials / agent-hour |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
    console.log('');
  }
  console.log(
    '| limit | runs | talk share (mean) | 2nd half (mean) | abandon rate (mean) | highest rate after 100 people | runs over the limit after 100 people |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const row of summary) console.log(row);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
