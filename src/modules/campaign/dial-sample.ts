/**
 * What the predictive look-ahead learns from a campaign's last dials with a
 * result (dialer.ts `humanRateOf`, `learned`), as counts and sums: the
 * pacing needs only how many dials ended or were answered after how many
 * seconds and by whom, and the total talk and wrap-up, never the order of
 * the dials. `DialerRepository.samplesOf` has the database add them up (a
 * few dozen groups a campaign instead of 200 rows); `sampleOf` adds up the
 * rows themselves (the plain reference, bench/pacing-replay.ts).
 */
export interface DialSample {
  /** Dials learned from, and of them those a person answered. */
  dials: number;
  humans: number;
  /** Seconds from each dial to its answer (or its end when nobody answered), whether a person answered, and how many dials: by secs, then human. */
  outcomes: Array<{ secs: number; human: boolean; n: number }>;
  /** Calls an agent took (answered by a person, ended) and their talk seconds in all. */
  talkN: number;
  talkSecs: number;
  /**
   * Dials with wrap-up and their wrap-up in all, in whole milliseconds
   * (each dial's floored): `wrap_secs` is a real, and whole numbers add up
   * the same in any order, so the database's sums and `sampleOf`'s are equal.
   */
  wrapN: number;
  wrapMs: number;
}

/** A dial with a result as the dialer reads it (`campaign_calls`). */
export interface RecentDial {
  dialled_at: number;
  connected_at: number | null;
  answered_by: string | null;
  agent_answered_at: number | null;
  ended_at: number | null;
  wrap_secs: number;
}

/** Adds groups of dials (or single ones) into a DialSample; the outcomes come out in one order whatever order they went in. */
export class SampleBuilder {
  private readonly groups = new Map<number, { secs: number; human: boolean; n: number }>();
  private readonly s: DialSample = { dials: 0, humans: 0, outcomes: [], talkN: 0, talkSecs: 0, wrapN: 0, wrapMs: 0 };

  /** `n` dials `secs` after their dial (clamped at 0), answered by a person or not, with their talk and wrap-up sums. */
  add(secs: number, human: boolean, n: number, talkN: number, talkSecs: number, wrapN: number, wrapMs: number): this {
    const at = Math.max(0, secs);
    const key = at * 2 + (human ? 1 : 0);
    const g = this.groups.get(key);
    if (g) g.n += n;
    else this.groups.set(key, { secs: at, human, n });
    this.s.dials += n;
    if (human) this.s.humans += n;
    this.s.talkN += talkN;
    this.s.talkSecs += talkSecs;
    this.s.wrapN += wrapN;
    this.s.wrapMs += wrapMs;
    return this;
  }

  done(): DialSample {
    return { ...this.s, outcomes: [...this.groups.values()].sort((a, b) => a.secs - b.secs || Number(a.human) - Number(b.human)) };
  }
}

/** The sample of dials given as rows (a row without a result, neither answered nor ended, is not learned from: the reads never give one). */
export function sampleOf(recent: readonly RecentDial[]): DialSample {
  const b = new SampleBuilder();
  for (const r of recent) {
    const at = r.connected_at ?? r.ended_at;
    if (at === null) continue;
    const human = r.answered_by === 'human';
    const took = human && r.agent_answered_at !== null && r.ended_at !== null;
    const wrapped = r.wrap_secs > 0;
    b.add(
      at - r.dialled_at,
      human,
      1,
      took ? 1 : 0,
      took ? Math.max(0, r.ended_at! - r.agent_answered_at!) : 0,
      wrapped ? 1 : 0,
      wrapped ? Math.floor(r.wrap_secs * 1000) : 0,
    );
  }
  return b.done();
}
