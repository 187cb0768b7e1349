/**
 * One line of Asterisk's queue_log: `time|callid|queue|agent|event|data…`
 * (`1732460400|1732460400.42|sales|PJSIP/5001|CONNECT|3|1732460403.43|2`).
 */
export interface QueueLogLine {
  /** Unix seconds. */
  time: number;
  /** The time as written, part of the event ids (so a re-import gives the same ids). */
  timeRaw: string;
  callId: string;
  queue: string;
  /** The member (`PJSIP/5001`, `Local/5001@from-queue/n`, a member name) or `NONE`. */
  agent: string;
  verb: string;
  data: string[];
  /** Position in the file: keeps the file's order among lines sorted as equal. */
  order: number;
  /** Which queue visit of its channel the line belongs to (1 from the first ENTERQUEUE on; 0 before any): set by `VisitCounter`. */
  visit: number;
}

/**
 * Numbers each channel's queue visits in file order, so that sorting a
 * second's lines (which Asterisk does not keep in order) never moves a later
 * visit's ENTERQUEUE before the earlier visit's exit written in that second
 * (an overflow: EXITWITHTIMEOUT in one queue, ENTERQUEUE in the next).
 */
export class VisitCounter {
  /** Per channel: its visits so far and the queues of the last two. */
  private readonly visits = new Map<string, { n: number; queue: string; previous: string | null }>();

  mark(l: QueueLogLine): QueueLogLine {
    if (l.callId === 'NONE' || l.callId === 'MANAGER') return l;
    const v = this.visits.get(l.callId);
    if (l.verb === 'ENTERQUEUE') {
      this.visits.set(l.callId, { n: (v?.n ?? 0) + 1, queue: l.queue, previous: v?.queue ?? null });
      l.visit = (v?.n ?? 0) + 1;
    } else if (v) {
      // The earlier visit's exit written after the next ENTERQUEUE (threads race within a second): its queue tells.
      l.visit = v.n > 1 && l.queue !== v.queue && l.queue === v.previous ? v.n - 1 : v.n;
    }
    return l;
  }
}

/** The line, or null when it is not one (too few fields, no time). */
export function parseQueueLogLine(raw: string, order: number): QueueLogLine | null {
  const f = raw.split('|');
  if (f.length < 5) return null;
  const time = Number(f[0]);
  if (!Number.isFinite(time) || time <= 0 || time > 1e11) return null;
  return { time, timeRaw: f[0]!, callId: f[1]!, queue: f[2]!, agent: f[3]!, verb: f[4]!.trim().toUpperCase(), data: f.slice(5), order, visit: 0 };
}

const END_VERBS = [
  'COMPLETECALLER',
  'COMPLETEAGENT',
  'TRANSFER',
  'BLINDTRANSFER',
  'ATTENDEDTRANSFER',
  'ABANDON',
  'EXITWITHTIMEOUT',
  'EXITWITHKEY',
  'EXITEMPTY',
];
const AGENT_VERBS = ['ADDMEMBER', 'REMOVEMEMBER', 'PAUSE', 'UNPAUSE', 'PAUSEREASON', 'AGENTLOGIN', 'AGENTLOGOFF'];

/**
 * The order of lines written in the same second, which Asterisk does not
 * keep: a call enters, rings, connects, ends. Agent lines keep the file's
 * order among themselves (a PAUSE then UNPAUSE in one second stays so).
 */
export const SAME_SECOND_RANK: ReadonlyMap<string, number> = new Map([
  ['DID', 0],
  ['ENTERQUEUE', 1],
  ['RINGNOANSWER', 2],
  ['RINGCANCELED', 2],
  ['CONNECT', 3],
  ...END_VERBS.map((v) => [v, 4] as [string, number]),
  ...AGENT_VERBS.map((v) => [v, 5] as [string, number]),
]);

/** Every verb the importer reads (others are counted as unknown lines and skipped). */
export const KNOWN_VERBS: ReadonlySet<string> = new Set(SAME_SECOND_RANK.keys());

export function compareLines(a: QueueLogLine, b: QueueLogLine): number {
  const sa = Math.floor(a.time);
  const sb = Math.floor(b.time);
  if (sa !== sb) return sa - sb;
  // A later visit's lines come after everything else of the second (its channel's earlier visit ended first).
  const ra = (SAME_SECOND_RANK.get(a.verb) ?? 5) + 10 * Math.max(0, a.visit - 1);
  const rb = (SAME_SECOND_RANK.get(b.verb) ?? 5) + 10 * Math.max(0, b.visit - 1);
  return ra !== rb ? ra - rb : a.order - b.order;
}
