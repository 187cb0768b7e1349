/**
 * What bench/analysis.ts asks and how, shared by its single-build mode (the
 * app in process) and its --baseline mode (two server processes,
 * analysis-baseline.ts): the question mix, a keep-alive client that times an
 * answer until its last byte, and the calls stored while a "live" row runs.
 */
import http from 'node:http';
import type { Database } from '../src/db/types.js';
import { RollupSink } from '../src/modules/analysis/rollup/rollup-sink.js';
import { CallHistoryService } from '../src/modules/calls/call-history.service.js';
import type { CallRecord } from '../src/modules/calls/call-record.js';

export const USER = 'bench-analysis';
export const PASSWORD = 'bench-analysis-password';

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** POSTs a JSON body; resolves with the answer's chunks once the last one has arrived (not joined, not parsed: the client's time). */
export function postRaw(port: number, route: string, body: string): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: route,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(chunks));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function postJson(port: number, url: string, body: unknown): Promise<Record<string, unknown>> {
  return JSON.parse(Buffer.concat(await postRaw(port, url, JSON.stringify(body))).toString()) as Record<string, unknown>;
}

/** A server's session for the bench account. */
export async function login(port: number): Promise<string> {
  return (await postJson(port, '/api/v2/auth/login', { username: USER, password: PASSWORD })).ssid as string;
}

/** One timed analysis/hits ask; throws when the answer is not a success. */
export async function ask(port: number, ssid: string, body: Record<string, unknown>, name: string): Promise<{ ms: number; reply: Buffer; keys: number }> {
  const t = performance.now();
  const chunks = await postRaw(port, '/api/v2/analysis/hits', JSON.stringify({ ssid, ...body }));
  const ms = performance.now() - t;
  const reply = Buffer.concat(chunks);
  const res = JSON.parse(reply.toString()) as Record<string, unknown>;
  if (res.status !== 'success') throw new Error(`${name}: ${JSON.stringify(res).slice(0, 300)}`);
  return { ms, reply, keys: Object.keys(res.data as object).length };
}

export type Question = [name: string, body: Record<string, unknown>];

/** The question mix, with filter keys read from the data through the server on `port`; `agentKey`: an agent the live rows store calls for. */
export async function questionMix(port: number, ssid: string): Promise<{ mix: Question[]; agentKey: number }> {
  const post = (url: string, body: unknown) => postJson(port, url, body);
  const today = Math.floor(Date.now() / 86400_000) * 86400;
  const range = { key: 'date', condi: 'range', val: `${today - 30 * 86400},${today - 1}` };
  const mmdd = (t: number) => {
    const d = new Date(t * 1000);
    return `${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}-${d.getUTCFullYear()}`;
  };
  const stringRange = { key: 'date', condi: 'range', val: `${mmdd(today - 30 * 86400)} 00:00:00,${mmdd(today - 86400)} 23:59:59` };
  const some = async (breakDown: string) =>
    Object.keys(((await post('/api/v2/analysis/hits', { ssid, breakDown, filter: [range], fields: 'TC' })).data ?? {}) as object).slice(0, 3);
  const keys: Record<string, string[]> = {};
  for (const b of ['agentId', 'groupId', 'did', 'campaignId']) keys[b] = await some(b);
  const mix: Question[] = [];
  // What dashboards ask (issue 21): the last 31 days up to the current second, and a range starting
  // and ending mid-hour (the same time of day 31 days ago and yesterday: both ends dense), totals
  // without multi, with the counters a wallboard shows.
  const now = Math.floor(Date.now() / 1000);
  const wallboard = 'UC,TC,MC,AC,CM,PM,CA,GH_UC,avgRingTime,avgHoldTime';
  const untilNow = { key: 'date', condi: 'range', val: `${now - 31 * 86400},${now}` };
  const midHours = { key: 'date', condi: 'range', val: `${now - 31 * 86400},${now - 86400}` };
  for (const b of ['agentId', 'groupId', 'did', 'campaignId']) {
    mix.push([`${b}: 31 days ending now, total (no multi)`, { breakDown: b, disPlay: 'total', fields: wallboard, filter: [untilNow] }]);
    mix.push([`${b}: 31 days mid-hour to mid-hour, total (no multi)`, { breakDown: b, disPlay: 'total', fields: wallboard, filter: [midHours] }]);
    mix.push([`${b}: 31 days ending now, date (multi)`, { breakDown: b, disPlay: 'date', multi: true, filter: [untilNow] }]);
    mix.push([`${b}: 31 days ending now, hour (multi)`, { breakDown: b, disPlay: 'hour', multi: true, filter: [untilNow] }]);
    mix.push([`${b}: 31 days mid-hour to mid-hour, hour (multi)`, { breakDown: b, disPlay: 'hour', multi: true, filter: [midHours] }]);
  }
  for (const b of ['agentId', 'groupId', 'did', 'campaignId']) {
    mix.push([`${b}: 30 days, disPlay date (multi)`, { breakDown: b, disPlay: 'date', multi: true, filter: [stringRange] }]);
    mix.push([`${b}: 30 days, total`, { breakDown: b, disPlay: 'total', filter: [range] }]);
    mix.push([`${b}: 30 days, month (multi)`, { breakDown: b, disPlay: 'month', multi: true, filter: [range] }]);
    mix.push([`${b}: 30 days, ${b} in 3 keys, date (multi)`, { breakDown: b, multi: true, filter: [range, { key: b, condi: 'in', val: keys[b] }] }]);
    mix.push([`${b}: 30 days, disPlay hour (multi)`, { breakDown: b, disPlay: 'hour', multi: true, filter: [range] }]);
  }
  mix.push(['other: agentId by did filter (cube)', { breakDown: 'agentId', filter: [range, { key: 'did', condi: 'eq', val: keys.did![0] }] }]);
  mix.push([
    'other: groupId by campaign + direction (cube)',
    { breakDown: 'groupId', filter: [range, { key: 'campaignId', condi: 'eq', val: keys.campaignId![0] }, { key: 'direction', condi: 'eq', val: 'inbound' }] },
  ]);
  mix.push(['other: did by one agent (cube)', { breakDown: 'did', filter: [range, { key: 'agentId', condi: 'eq', val: keys.agentId![0] }] }]);
  mix.push([
    'other: groupId by 2 agents, 30 days (cube + shared calls)',
    { breakDown: 'groupId', filter: [range, { key: 'agentId', condi: 'in', val: keys.agentId!.slice(0, 2) }] },
  ]);
  mix.push([
    'other: agentId, 1 day not whole days (hourly + raw edges)',
    { breakDown: 'agentId', filter: [{ key: 'date', condi: 'range', val: `${today - 2 * 86400 + 1800},${today - 86400 + 1799}` }] },
  ]);
  // Up to the end of today, with calls ending meanwhile (as ingest stores them all day): today is
  // computed again every time, the 30 days before it come from memory.
  const live = (display: string) => ({
    breakDown: 'agentId',
    disPlay: display,
    multi: true,
    filter: [{ key: 'date', condi: 'range', val: `${today - 30 * 86400},${today + 86400 - 1}` }],
  });
  mix.push([
    'live: agentId, 31 days ending now, total (no multi), 10 calls/s stored meanwhile',
    { breakDown: 'agentId', disPlay: 'total', fields: wallboard, filter: [untilNow] },
  ]);
  mix.push(['live: agentId, 30 days + today, date (multi), 10 calls/s stored meanwhile', live('date')]);
  mix.push(['live: agentId, 30 days + today, disPlay hour (multi), 10 calls/s stored meanwhile', live('hour')]);
  return { mix, agentKey: Number(keys.agentId![0]) };
}

/**
 * Stores one ended call of `agentId` (a minute ago) through this build's
 * call history, in process: what ingest would store while a live row runs.
 */
export function callStorer(db: Database, accountId: number, agentId: number): () => Promise<void> {
  let stored = 0;
  const history = new CallHistoryService({ db, sink: new RollupSink() });
  return async () => {
    const at = Math.floor(Date.now() / 1000) - 60;
    const record: CallRecord = {
      accountId,
      callId: `bench-live-${process.pid}-${Date.now()}-${stored++}`,
      queuedAt: at,
      endedAt: at + 40,
      groupId: null,
      did: null,
      campaignId: null,
      direction: 'inbound',
      caller: null,
      retryOf: null,
      answeredBy: agentId,
      answeredAt: at + 5,
      talkSecs: 30,
      holdSecs: 0,
      waitSecs: 5,
      outcome: 'completed',
      hits: [{ seq: 0, agentId, ringAt: at + 1, ringSecs: 4, answered: true }],
    };
    await db.transaction((tx) => history.record(tx, record.accountId, [record]));
  };
}

/** Runs `body` while one call is stored every 100 ms (ten a second, as ingest would store them); waits for the last store. */
export async function whileStoring<T>(store: (() => Promise<void>) | null, body: () => Promise<T>): Promise<T> {
  if (!store) return body();
  let storing = Promise.resolve();
  const timer = setInterval(() => (storing = storing.then(store)), 100);
  try {
    return await body();
  } finally {
    clearInterval(timer);
    await storing;
  }
}
