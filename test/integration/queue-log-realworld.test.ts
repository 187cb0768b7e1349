import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { afterAll, expect, it } from 'vitest';
import { runQueueLogImport, type ImportResult } from '../../src/connectors/queue-log/import-command.js';
import { createAgent, createGroup } from '../helpers/admin.js';
import { createTenant, type Session } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { membersAtEnd, pipeLines, realworld, sqlDumpLines, visitsOf, type RawLine, type Visit } from '../helpers/realworld.js';
import { baseUrl, closeReaders } from '../helpers/sse.js';

afterAll(closeReaders);

/**
 * The real queue_log files of ../shared/realworld/queue_log/ imported as they
 * are: what each file says happened (counted from its lines by
 * helpers/realworld.ts) is what the service reports.
 */

type Tenant = Session & { accountId: number };

/** An account with a group per queue and an agent per member: `members` is interface → the member's name (queue_log's agent field). */
async function setup(h: Harness, queues: string[], members: Record<string, string>) {
  const t: Tenant = await createTenant(h);
  const groups: number[] = [];
  for (const name of queues) groups.push(await createGroup(h, t, { name }));
  const agentOf = new Map<string, number>();
  for (const [iface, name] of Object.entries(members)) {
    const ext = iface.split('/')[1]!;
    const { agentId } = await createAgent(h, t, { group: groups, name, dest_type: 'SIP', dest_value: `sip:${ext}@pbx.example.com` });
    agentOf.set(iface, agentId);
    agentOf.set(name, agentId);
  }
  const sw = (await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' })).body;
  const options = { api: await baseUrl(h), 'user-id': sw.userId, token: sw.token };
  return { t, agentOf, options };
}

interface Reported {
  callId: string;
  outcome: string;
  answeredBy: number | null;
  wait: number;
  did: string | null;
  retryOf: string | null;
  offers: Array<[number, boolean]>;
}

/** The call history the service keeps, in queue order. */
async function reported(h: Harness, t: Tenant): Promise<Reported[]> {
  const calls = await h.db.all<{
    call_id: string;
    outcome: string;
    answered_by: number | null;
    wait_secs: number;
    did: string | null;
    retry_of: string | null;
  }>('SELECT call_id, outcome, answered_by, wait_secs, did, retry_of FROM calls WHERE account_id = $1 ORDER BY queued_at, call_id', [t.accountId]);
  const hits = await h.db.all<{ call_id: string; agent_id: number; answered: number }>(
    'SELECT call_id, agent_id, answered FROM call_hits WHERE account_id = $1 ORDER BY call_id, seq',
    [t.accountId],
  );
  return calls.map((c) => ({
    callId: c.call_id,
    outcome: c.outcome,
    answeredBy: c.answered_by === null ? null : Number(c.answered_by),
    wait: Number(c.wait_secs),
    did: c.did,
    retryOf: c.retry_of,
    offers: hits.filter((x) => x.call_id === c.call_id).map((x): [number, boolean] => [Number(x.agent_id), Number(x.answered) === 1]),
  }));
}

/** What the file says, in the service's terms: each visit a call (a channel's later visit `-v<n>`, retrying the one before). */
function expected(visits: Visit[], agentOf: Map<string, number>): Reported[] {
  const seen = new Map<string, string>();
  const n = new Map<string, number>();
  return visits
    .map((v) => {
      const k = (n.get(v.channel) ?? 0) + 1;
      n.set(v.channel, k);
      const callId = k === 1 ? v.channel : `${v.channel}-v${k}`;
      const retryOf = seen.get(v.channel) ?? null;
      seen.set(v.channel, callId);
      return {
        callId,
        outcome: v.outcome ?? 'open',
        answeredBy: v.answeredBy === null ? null : agentOf.get(v.answeredBy)!,
        // The switch's own wait; a table's whole-second times can put a ring's end (its line) past it, and a call ends after its rings.
        wait: v.outcome === 'abandoned' ? Math.max(v.wait!, v.lastOfferAt - v.enteredAt) : v.wait!,
        did: v.did,
        retryOf,
        offers: v.offers.map((o): [number, boolean] => [agentOf.get(o.member)!, o.answered]),
        enteredAt: v.enteredAt,
      };
    })
    .sort((a, b) => a.enteredAt - b.enteredAt || a.callId.localeCompare(b.callId))
    .map(({ enteredAt: _, ...r }) => r);
}

async function liveCalls(h: Harness, t: Tenant): Promise<number> {
  return Number((await h.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM live_calls WHERE account_id = $1', [t.accountId]))!.n);
}

async function loggedIn(h: Harness, t: Tenant, agentId: number): Promise<boolean> {
  const row = await h.db.get<{ logged_in: number }>('SELECT logged_in FROM live_agents WHERE account_id = $1 AND agent_id = $2', [t.accountId, agentId]);
  return Number(row?.logged_in ?? 0) === 1;
}

/** Imports twice: the second import only finds duplicates and changes nothing. */
async function importTwice(h: Harness, t: Tenant, options: Record<string, string>, file: string, extra: Record<string, string> = {}) {
  const log: string[] = [];
  const first = await runQueueLogImport({ ...options, ...extra }, file, false, { log: (l) => log.push(l), progress: false, env: {} });
  const after = await reported(h, t);
  const second: ImportResult = await runQueueLogImport({ ...options, ...extra }, file, false, { log: () => undefined, progress: false, env: {} });
  expect(second).toMatchObject({ events: 0, duplicates: first.events, rejected: 0 });
  expect(await reported(h, t)).toEqual(after);
  return { first, log, calls: after };
}

const ISSABEL = 'queue_log/synk_bug_issabel_queue_log-20220801';
const ISSABEL_LATER = 'queue_log/synk_bug_issabel_queue_log';
const MALARIA = 'queue_log/malariapbx_queue_log_table_rows.sql';

/** Member interface → member name, as the file pairs them (ADDMEMBER by interface, then UNPAUSE by name in the same second). */
function memberNames(lines: RawLine[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const add of lines.filter((l) => l.event === 'ADDMEMBER')) {
    const named = lines.find((l) => l.time === add.time && l.event === 'UNPAUSE' && l.agent !== add.agent);
    if (named) out[add.agent] = named.agent;
  }
  return out;
}

forEachDatabase('import queue-log: real files', (use) => {
  it.each([ISSABEL, ISSABEL_LATER])(
    '%s: every call, answer (by member name), abandon and wait as the file says; NUL runs skipped; nothing left live',
    async (name) => {
      const h = use();
      const file = realworld(name);
      const lines = pipeLines(file);
      const members = memberNames(lines);
      const queues = [...new Set(lines.filter((l) => l.event === 'ENTERQUEUE').map((l) => l.queue))];
      const { t, agentOf, options } = await setup(h, queues, members);
      const { first, log, calls } = await importTwice(h, t, options, file);

      const truth = expected(visitsOf(lines), agentOf);
      expect(calls).toEqual(truth);
      expect(first.rejected).toBe(0);
      expect(log.filter((l) => /rejected|unknown member/.test(l))).toEqual([]);
      // The torn write: one run of NUL bytes, counted and skipped; the line after it read.
      const nulRuns = fs.readFileSync(file, 'latin1').match(/\0+/g)!.length;
      expect(first.damagedLines).toBe(nulRuns);
      expect(await liveCalls(h, t)).toBe(0);
      for (const [iface, on] of membersAtEnd(lines)) expect(await loggedIn(h, t, agentOf.get(iface)!), iface).toBe(on);
      // The figures of the closing note: calls, answered, abandoned in the file and in the service.
      const sum = (r: Array<{ outcome: string; answeredBy: number | null }>) => [
        r.length,
        r.filter((c) => c.answeredBy !== null).length,
        r.filter((c) => c.outcome === 'abandoned').length,
      ];
      expect(sum(calls)).toEqual(sum(truth));
    },
  );

  it('the realtime table (mysqldump INSERTs): every call as its rows say; the same rows as pg_dump --inserts and as CSV give the same calls', async () => {
    const h = use();
    const file = realworld(MALARIA);
    const lines = sqlDumpLines(file);
    const queues = [...new Set(lines.filter((l) => l.event === 'ENTERQUEUE').map((l) => l.queue))];
    const members = Object.fromEntries([...new Set(lines.filter((l) => l.agent !== 'NONE').map((l) => l.agent))].map((m) => [m, `Agent ${m.split('/')[1]}`]));
    const truth = (agentOf: Map<string, number>) => expected(visitsOf(lines), agentOf);

    const mysql = await setup(h, queues, members);
    const { first, calls } = await importTwice(h, mysql.t, mysql.options, file, { format: 'sql' });
    expect(first.rejected).toBe(0);
    expect(first.lines).toBe(lines.length);
    expect(calls).toEqual(truth(mysql.agentOf));
    expect(await liveCalls(h, mysql.t)).toBe(0);
    // Read in UTC (the default): each call is queued at or after its channel's creation, the uniqueid's own time.
    const queued = await h.db.all<{ call_id: string; queued_at: number }>('SELECT call_id, queued_at FROM calls WHERE account_id = $1', [mysql.t.accountId]);
    for (const q of queued) expect(Number(q.queued_at) - Math.floor(Number(q.call_id))).toSatisfy((d: number) => d >= 0 && d < 5);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'queue-log-table-'));
    const quote = (v: string) => `'${v.replace(/'/g, "''")}'`;
    const iso = (l: RawLine) => new Date(l.time * 1000).toISOString().replace('T', ' ').replace('Z', '');
    // pg_dump --inserts: schema-qualified, one statement per row, standard strings.
    const pg = path.join(dir, 'queue_log.pg.sql');
    fs.writeFileSync(
      pg,
      'SET standard_conforming_strings = on;\n' +
        lines
          .map((l, i) => `INSERT INTO public.queue_log VALUES (${i + 1}, ${[iso(l), l.callid, l.queue, l.agent, l.event, ...l.data].map(quote).join(', ')});`)
          .join('\n'),
    );
    // A CSV export with a header row, times in Europe/Paris (read with --timezone).
    const paris = (l: RawLine) => new Date(l.time * 1000).toLocaleString('sv-SE', { timeZone: 'Europe/Paris' });
    const csv = path.join(dir, 'queue_log.csv');
    fs.writeFileSync(
      csv,
      stringify([
        ['time', 'callid', 'queuename', 'agent', 'event', 'data1', 'data2', 'data3', 'data4', 'data5'],
        ...lines.map((l) => [paris(l), l.callid, l.queue, l.agent, l.event, ...l.data]),
      ]),
    );
    const viaPg = await setup(h, queues, members);
    await importTwice(h, viaPg.t, viaPg.options, pg, { format: 'sql' });
    expect(await reported(h, viaPg.t)).toEqual(truth(viaPg.agentOf));
    const viaCsv = await setup(h, queues, members);
    await importTwice(h, viaCsv.t, viaCsv.options, csv, { format: 'csv', timezone: 'Europe/Paris' });
    expect(await reported(h, viaCsv.t)).toEqual(truth(viaCsv.agentOf));
    const times = async (t: Tenant) =>
      (await h.db.all<{ queued_at: number }>('SELECT queued_at FROM calls WHERE account_id = $1 ORDER BY queued_at', [t.accountId])).map((r) =>
        Number(r.queued_at),
      );
    expect(await times(viaCsv.t)).toEqual(await times(mysql.t));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('an overflow (EXITWITHTIMEOUT, then ENTERQUEUE on the same channel in the same second, written out of order) and a loop back: each visit a call retrying the one before', async () => {
    const h = use();
    // The Issabel file's call 1658905976.72 (DID, ENTERQUEUE, RINGNOANSWER by member name), sent on as a caller overflowing to
    // queue 600 and looping back to 500 would be: no public file shows one, so the lines follow the real ones' format.
    const text = [
      '1658906001|1658905976.72|500|NONE|DID|7777',
      '1658906001|1658905976.72|500|NONE|ENTERQUEUE||1002|1',
      '1658906011|1658905976.72|500|Sathish|RINGNOANSWER|10000',
      '1658906021|1658905976.72|600|NONE|ENTERQUEUE||1002|1',
      '1658906021|1658905976.72|500|NONE|EXITWITHTIMEOUT|1|1|20',
      '1658906031|1658905976.72|600|NONE|EXITWITHKEY|5|1|1|10',
      '1658906032|1658905976.72|500|NONE|ENTERQUEUE||1002|1',
      '1658906037|1658905976.72|500|Sathish|CONNECT|5|1658906032.80|5',
      '1658906097|1658905976.72|500|Sathish|COMPLETECALLER|5|60|1',
      '',
    ].join('\n');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'queue-log-overflow-'));
    const file = path.join(dir, 'queue_log');
    fs.writeFileSync(file, text);
    const lines = pipeLines(file);
    // The file order puts the exit after the next ENTERQUEUE; a reader takes the exit as the 500 visit's.
    const ordered = [...lines].sort((a, b) => a.time - b.time || Number(a.event === 'ENTERQUEUE') - Number(b.event === 'ENTERQUEUE'));
    const { t, agentOf, options } = await setup(h, ['500', '600'], { 'SIP/1001': 'Sathish' });
    const { first, calls } = await importTwice(h, t, options, file);
    expect(first.rejected).toBe(0);
    const truth = expected(visitsOf(ordered), agentOf);
    expect(calls).toEqual(truth);
    expect(calls.map((c) => [c.callId, c.retryOf])).toEqual([
      ['1658905976.72', null],
      ['1658905976.72-v2', '1658905976.72'],
      ['1658905976.72-v3', '1658905976.72-v2'],
    ]);
    expect(await liveCalls(h, t)).toBe(0);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
