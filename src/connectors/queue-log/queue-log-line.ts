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
}

/** The line, or null when it is not one (too few fields, no time). */
export function parseQueueLogLine(raw: string, order: number): QueueLogLine | null {
  const f = raw.split('|');
  if (f.length < 5) return null;
  const time = Number(f[0]);
  if (!Number.isFinite(time) || time <= 0 || time > 1e11) return null;
  return { time, timeRaw: f[0]!, callId: f[1]!, queue: f[2]!, agent: f[3]!, verb: f[4]!.trim().toUpperCase(), data: f.slice(5), order };
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
  const ra = SAME_SECOND_RANK.get(a.verb) ?? 5;
  const rb = SAME_SECOND_RANK.get(b.verb) ?? 5;
  return ra !== rb ? ra - rb : a.order - b.order;
}
