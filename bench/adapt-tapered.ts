/**
 * VICIdial's adaptive predictive dialing, method ADAPT_TAPERED, written from
 * its published description and formula (VICIdial's AST_VDadapt.pl, which
 * adjusts a campaign's `auto_dial_level`, and AST_VDauto_dial.pl, which
 * places `dial level × agents − calls in progress` calls) so that
 * bench/campaign-pacing.ts can run it in the same simulated world as our
 * pacing. Benchmark only: the service never dials this way.
 *
 * Every second it samples the campaign's agents: ready (free), calls
 * waiting for an agent, agents in total. Every 15 seconds it adjusts the
 * dial level:
 *
 *   differential = mean ready − mean waiting (last 15 samples) + dl_diff_target
 *   d = differential ÷ mean agents;  with intensity I (−40…40, default 0):
 *   d' = d × (1 + I/100) when d ≥ 0, else d × |I/100 − 1|
 *   level = level × (1 + d'), capped at adaptive_maximum_level (default 3)
 *
 * then the drop rules: more than 20 calls in the last minute with over 50 %
 * of them dropped halves the level; with more than 50 calls today and the
 * day's drops over `adaptive_dropped_percentage` of the answers, TAPERED
 * multiplies the level by the share of the shift left — (latest server time
 * − now, both as HHMM numbers) ÷ 1000, at most 1, so ten hours or more
 * before the shift's end it lets the rate run over, and tightens towards
 * the end — and past the end sets it to 1. The level never goes below 1.
 *
 * The dialer, every second: goal = round(level × (ready + in-call agents)),
 * calls = goal − the campaign's calls in progress (ringing, waiting or with
 * an agent). Agents in wrap-up count in neither (VICIdial's agents are
 * paused while they disposition a call).
 */
import type { PacingDecision, PacingInput } from '../src/modules/campaign/pacing.js';

export interface AdaptSettings {
  /** adaptive_dropped_percentage: the day's drops ÷ answers to keep under, percent. */
  droppedPercentage: number;
  /** adaptive_maximum_level. */
  maximumLevel: number;
  /** adaptive_intensity, −40…40. */
  intensity: number;
  /** adaptive_dl_diff_target: −1 aims at one agent waiting, +1 at one customer waiting. */
  dlDiffTarget: number;
  /** adaptive_latest_server_time, HHMM (the shift's end). */
  latestServerTime: number;
  /** The dial level the campaign starts at (auto_dial_level). */
  startLevel: number;
}

/** The world's counts the drop rules read (VICIdial reads them from its call log). */
export interface AdaptCounts {
  /** Calls placed today. */
  calls: number;
  /** Of them answered by a person, and of those dropped (abandoned). */
  answers: number;
  drops: number;
}

const SAMPLES = 15;
const ADJUST_EVERY = 15;

export class AdaptTapered {
  level: number;
  private samples: Array<{ ready: number; waiting: number; total: number }> = [];
  private seconds = 0;
  /** Counts at each second of the last minute (the one-minute drop rule). */
  private minute: AdaptCounts[] = [];

  constructor(private readonly s: AdaptSettings) {
    this.level = s.startLevel;
  }

  /** One second: sample, adjust every 15 s, decide the calls to place. */
  decide(i: PacingInput, today: AdaptCounts, hhmm: number): PacingDecision {
    const talking = i.outlook?.talking.length ?? 0;
    const wrapping = i.outlook?.wrapping.length ?? 0;
    const waiting = i.outlook?.waiting ?? 0;
    this.samples.push({ ready: i.freeAgents, waiting, total: i.freeAgents + talking + wrapping });
    if (this.samples.length > SAMPLES) this.samples.shift();
    this.minute.push({ ...today });
    if (this.minute.length > 60) this.minute.shift();
    if (++this.seconds % ADJUST_EVERY === 0) this.adjust(today, hhmm);
    const goal = Math.round(this.level * (i.freeAgents + talking));
    const dials = Math.max(0, Math.min(goal - i.lines, i.maxLines - i.lines));
    return { dials, as: dials > 0 ? 'predictive' : 'none', fallback: false, budget: 0 };
  }

  private adjust(today: AdaptCounts, hhmm: number): void {
    const n = this.samples.length;
    const mean = (k: 'ready' | 'waiting' | 'total') => this.samples.reduce((a, x) => a + x[k], 0) / n;
    const agents = mean('total');
    const differential = mean('ready') - mean('waiting') + this.s.dlDiffTarget;
    const d = differential !== 0 && agents !== 0 ? differential / agents : 0;
    const intensity = this.s.intensity / 100;
    const dIntense = d < 0 ? d * Math.abs(intensity - 1) : d * (intensity + 1);
    let level = this.level * (1 + dIntense);
    level = Math.min(level, this.s.maximumLevel);
    if (level < 1) level = 1;
    const hoursLeft = this.s.latestServerTime - hhmm;
    const taperedRate = hoursLeft > 1000 ? 1 : hoursLeft / 1000;
    const first = this.minute[0]!;
    const callsOne = today.calls - first.calls;
    const dropsOne = today.drops - first.drops;
    if (callsOne > 20 && (dropsOne / callsOne) * 100 > 50) level = level / 2;
    const dropPct = (today.drops / Math.max(1, today.answers)) * 100;
    if (today.calls > 50 && dropPct > this.s.droppedPercentage) level = hoursLeft < 0 ? 1 : level * taperedRate;
    this.level = Math.max(1, level);
  }
}
