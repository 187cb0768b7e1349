import { isStoredSa, isStoredSl } from './thresholds.js';

/** Rounded to 2 decimals; null stays null. */
export const round2 = (x: number | null): number | null => (x === null ? null : Math.round((x + Number.EPSILON) * 100) / 100);
const avg = (sum: number, n: number) => (n > 0 ? round2(sum / n) : null);
const pct = (part: number, whole: number) => (whole > 0 ? round2((part / whole) * 100) : null);

/** The sums behind one queue row (one group, one interval). */
export class QueueSums {
  offered = 0;
  answered = 0;
  abandonedAll = 0;
  ansWait = 0;
  abWaitAll = 0;
  maxWait: number | null = null;
  talk = 0;
  hold = 0;
  wrap = 0;
  takenOver = 0;
  retries = 0;
  /** Answered with wait ≤ T, per threshold asked for. */
  readonly within = new Map<number, number>();
  /** Abandons with wait < shortAbandon, and their wait sum. */
  short = 0;
  shortWait = 0;

  /** Adds one roll-up row (a quarter hour of one group). */
  addRollup(r: Record<string, number | null>, sl: readonly number[], sa: number): void {
    const n = (k: string) => Number(r[k] ?? 0);
    this.offered += n('offered');
    this.answered += n('answered');
    this.abandonedAll += n('abandoned');
    this.ansWait += n('ans_wait_sum');
    this.abWaitAll += n('ab_wait_sum');
    if (r.max_wait !== null && r.max_wait !== undefined) this.maxWait = Math.max(this.maxWait ?? 0, Number(r.max_wait));
    this.talk += n('talk_sum');
    this.hold += n('hold_sum');
    this.wrap += n('wrap_sum');
    this.takenOver += n('taken_over');
    this.retries += n('retries');
    for (const t of sl) if (isStoredSl(t)) this.within.set(t, (this.within.get(t) ?? 0) + n(`sl_${t}`));
    if (isStoredSa(sa)) {
      this.short += n(`sa_${sa}`);
      this.shortWait += n(`saw_${sa}`);
    }
  }

  /** Adds one finished call's threshold figures (the exact path for thresholds the roll-up does not keep). */
  addCall(c: { wait_secs: number; answered_at: number | null; outcome: string }, sl: readonly number[], sa: number): void {
    const wait = Number(c.wait_secs);
    if (c.answered_at !== null) {
      for (const t of sl) if (!isStoredSl(t) && wait <= t) this.within.set(t, (this.within.get(t) ?? 0) + 1);
    } else if (c.outcome === 'abandoned' && !isStoredSa(sa) && wait < sa) {
      this.short++;
      this.shortWait += wait;
    }
  }

  figures(sl: readonly number[]) {
    const base = this.offered - this.short;
    const abandoned = this.abandonedAll - this.short;
    const answeredWithin: Record<string, number> = {};
    const serviceLevel: Record<string, number | null> = {};
    for (const t of sl) {
      answeredWithin[String(t)] = this.within.get(t) ?? 0;
      serviceLevel[String(t)] = pct(this.within.get(t) ?? 0, base);
    }
    return {
      offered: this.offered,
      answered: this.answered,
      abandoned,
      shortAbandoned: this.short,
      answeredWithin,
      serviceLevel,
      abandonRate: pct(abandoned, base),
      asa: avg(this.ansWait, this.answered),
      maxWait: round2(this.maxWait),
      avgAbandonWait: avg(this.abWaitAll - this.shortWait, abandoned),
      aht: avg(this.talk + this.hold + this.wrap, this.answered),
      avgTalk: avg(this.talk, this.answered),
      avgHold: avg(this.hold, this.answered),
      avgWrap: avg(this.wrap, this.answered),
      takenOver: this.takenOver,
      retries: this.retries,
    };
  }
}

/** The sums behind one agent row. */
export class AgentSums {
  login = 0;
  available = 0;
  talk = 0;
  hold = 0;
  wrap = 0;
  brk = 0;
  offered = 0;
  answered = 0;
  missed = 0;
  readonly breaks = new Map<string, number>();

  addRollup(r: Record<string, number>): void {
    const n = (k: string) => Number(r[k] ?? 0);
    this.login += n('login');
    this.available += n('available');
    this.talk += n('talk');
    this.hold += n('hold');
    this.wrap += n('wrap');
    this.brk += n('brk');
    this.offered += n('offered');
    this.answered += n('answered');
    this.missed += n('missed');
  }

  figures(reasons: readonly string[]) {
    const work = this.talk + this.hold + this.wrap;
    const breaks: Record<string, number> = {};
    for (const r of reasons) breaks[r] = round2(this.breaks.get(r) ?? 0)!;
    return {
      loginTime: round2(this.login)!,
      availableTime: round2(this.available)!,
      talkTime: round2(this.talk)!,
      holdTime: round2(this.hold)!,
      wrapTime: round2(this.wrap)!,
      breakTime: round2(this.brk)!,
      breaks,
      offered: this.offered,
      answered: this.answered,
      missed: this.missed,
      aht: avg(work, this.answered),
      occupancy: pct(work, this.login - this.brk),
    };
  }
}
