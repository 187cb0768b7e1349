import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Real switch traffic kept beside the checkout (`../shared/realworld/`, see
 * its README): tests read it from there and never copy it into the project.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function realworld(file: string): string {
  return path.resolve(repoRoot, '../shared/realworld', file);
}

/** One queue_log line as the file writes it. */
export interface RawLine {
  time: number;
  callid: string;
  queue: string;
  agent: string;
  event: string;
  data: string[];
}

/** The lines of a queue_log file: a run of NUL bytes (a torn write) ends what precedes it; what follows the run is a line. */
export function pipeLines(file: string): RawLine[] {
  return fs
    .readFileSync(file, 'latin1')
    .split('\n')
    .map((l) => l.split(/\0+/).pop()!)
    .filter((l) => /^\d+\|/.test(l))
    .map((l) => {
      const [time, callid, queue, agent, event, ...data] = l.split('|');
      return { time: Number(time), callid: callid!, queue: queue!, agent: agent!, event: event!, data };
    });
}

/** The rows of a mysqldump of the realtime queue_log table: `(id,'time','callid','queue','agent','event','d1',…,'d5')`, times in UTC. */
export function sqlDumpLines(file: string): RawLine[] {
  const text = fs.readFileSync(file, 'utf8');
  const tuple = /\((\d+),'([^']*)','([^']*)','([^']*)','([^']*)','([^']*)','([^']*)','([^']*)','([^']*)','([^']*)','([^']*)'\)/g;
  return [...text.matchAll(tuple)].map((m) => ({
    time: Date.parse(`${m[2]!.replace(' ', 'T')}Z`) / 1000,
    callid: m[3]!,
    queue: m[4]!,
    agent: m[5]!,
    event: m[6]!,
    data: m.slice(7, 12),
  }));
}

/** What the file says of one queue visit. */
export interface Visit {
  channel: string;
  queue: string;
  enteredAt: number;
  did: string | null;
  caller: string | null;
  /** The member that answered (queue_log's agent field), or null. */
  answeredBy: string | null;
  outcome: 'completed' | 'abandoned' | null;
  /** The switch's own wait: CONNECT's holdtime, or the exit line's waittime. */
  wait: number | null;
  /** The time of the last offer line (a ring's end): the call cannot end before it. */
  lastOfferAt: number;
  /** Offers: each RINGNOANSWER / RINGCANCELED (unanswered) and the CONNECT (answered). */
  offers: Array<{ member: string; answered: boolean }>;
}

const ABANDONED = new Set(['ABANDON', 'EXITWITHTIMEOUT', 'EXITWITHKEY', 'EXITEMPTY']);
const COMPLETED = new Set(['COMPLETECALLER', 'COMPLETEAGENT', 'TRANSFER', 'BLINDTRANSFER', 'ATTENDEDTRANSFER']);

/**
 * Walks the lines in the file's order and tells what happened, as a person
 * reading the file would: every ENTERQUEUE a visit, CONNECT its answer,
 * ABANDON / EXIT… its abandonment, COMPLETE… and transfers its end.
 */
export function visitsOf(lines: RawLine[]): Visit[] {
  const visits: Visit[] = [];
  const open = new Map<string, Visit>();
  const dids = new Map<string, string>();
  for (const l of lines) {
    if (l.event === 'DID') {
      if (l.data[0]) dids.set(l.callid, l.data[0]);
      continue;
    }
    if (l.event === 'ENTERQUEUE') {
      const v: Visit = {
        channel: l.callid,
        queue: l.queue,
        enteredAt: l.time,
        did: dids.get(l.callid) ?? null,
        caller: l.data[1] || null,
        answeredBy: null,
        outcome: null,
        wait: null,
        lastOfferAt: l.time,
        offers: [],
      };
      visits.push(v);
      open.set(l.callid, v);
      continue;
    }
    const v = open.get(l.callid);
    if (!v) continue;
    if (['CONNECT', 'RINGNOANSWER', 'RINGCANCELED'].includes(l.event)) v.lastOfferAt = l.time;
    if (l.event === 'CONNECT') {
      v.answeredBy = l.agent;
      v.wait = Number(l.data[0]);
      v.offers.push({ member: l.agent, answered: true });
    } else if (l.event === 'RINGNOANSWER' || l.event === 'RINGCANCELED') {
      const last = v.offers[v.offers.length - 1];
      // Written beside a RINGNOANSWER for the same ring (some versions write both): one offer.
      if (!(l.event === 'RINGCANCELED' && last && last.member === l.agent && !last.answered)) v.offers.push({ member: l.agent, answered: false });
    } else if (ABANDONED.has(l.event)) {
      v.outcome = 'abandoned';
      // position|origposition|waittime; EXITWITHKEY: key|position|origposition|waittime.
      v.wait = Number(l.data[l.event === 'EXITWITHKEY' ? 3 : 2]);
      open.delete(l.callid);
    } else if (COMPLETED.has(l.event)) {
      v.outcome = 'completed';
      open.delete(l.callid);
    }
  }
  return visits;
}

/** Each member interface's last ADDMEMBER / REMOVEMEMBER: logged in at the file's end or not. */
export function membersAtEnd(lines: RawLine[]): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const l of lines) {
    if (l.event === 'ADDMEMBER') out.set(l.agent, true);
    if (l.event === 'REMOVEMEMBER') out.set(l.agent, false);
  }
  return out;
}
