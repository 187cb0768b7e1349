/**
 * What the campaign benchmarks share (campaign-pacing.ts, campaign-tick.ts):
 * the service built in this process on a fresh database with a manual clock
 * and no dialer loop of its own (the benchmark ticks it), and campaign worlds
 * created through the public API (`app.inject`).
 */
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { ManualClock } from '../src/clock.js';
import { loadConfig } from '../src/config/config.js';
import { dialectOf } from '../src/db/dialect.js';
import { migrate } from '../src/db/migrate.js';
import { tenant } from '../src/db/tenant.js';
import type { Database, Dialect } from '../src/db/types.js';
import { AccountService } from '../src/modules/account/account.service.js';
import { AbandonWindowRepository } from '../src/modules/campaign/abandon-window.repository.js';
import type { Services } from '../src/modules/services.js';
import { openFreshBenchDatabase } from './support.js';

const OPERATOR = { username: 'campaign-bench', password: 'campaign-bench-password' };
export const ALL_DAY = { start: '00:00', end: '23:59', weekDays: [1, 2, 3, 4, 5, 6, 7] };

export interface BenchService {
  app: FastifyInstance;
  services: Services;
  db: Database;
  clock: ManualClock;
  /** POST through the app; fails on anything but success. */
  ok(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** `wrap`: what the service sees of the database (bench/statement-log.ts counts its statements). */
export async function benchService(dialect: Dialect, name: string, startMs: number, wrap?: (db: Database) => Database): Promise<BenchService> {
  const raw = await openFreshBenchDatabase(dialect, name);
  const db = wrap ? wrap(raw) : raw;
  await migrate(db);
  const clock = new ManualClock(startMs);
  await new AccountService({ db, clock }).bootstrap(OPERATOR.username, OPERATOR.password);
  const config = { ...loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0' }), campaignDialer: false };
  const { app, services } = await buildApp({ config, db, clock });
  await app.ready();
  const ok = async (path: string, body: Record<string, unknown>) => {
    const res = await app.inject({ method: 'POST', url: `/api/v2/${path}`, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    const json = res.json() as Record<string, unknown>;
    if (json.status !== 'success') throw new Error(`${path}: ${res.body}`);
    return json;
  };
  return {
    app,
    services,
    db,
    clock,
    ok,
    async close() {
      await app.close();
      await db.close();
    },
  };
}

export interface CampaignWorld {
  accountId: number;
  ssid: string;
  groupIds: number[];
  agentIds: number[];
  did: string;
  api: { userId: string; token: string };
}

let tenantSeq = 0;

/** A tenant with a DID, `groups` groups of `agentsPerGroup` agents each (logged in), and a client API token. */
export async function tenantWorld(s: BenchService, opts: { groups: number; agentsPerGroup: number; login?: boolean }): Promise<CampaignWorld> {
  const n = ++tenantSeq;
  const op = String((await s.ok('auth/login', OPERATOR)).ssid);
  const username = `bench-tenant-${n}`;
  const created = await s.ok('account/create', { ssid: op, username, password: 'tenant-password', name: username });
  const accountId = Number((created.data as { userId: string }).userId);
  const ssid = String((await s.ok('auth/login', { username, password: 'tenant-password' })).ssid);
  const did = String(((await s.ok('did/create', { ssid, did: `8040${String(n).padStart(8, '0')}` })).data as { did: string }).did);
  const role = ((await s.ok('role/create', { ssid, name: 'Agent', permissions: ['agent.view'] })).data as { roleId: number }).roleId;
  const groupIds: number[] = [];
  const agentIds: number[] = [];
  for (let g = 0; g < opts.groups; g++) {
    const groupId = ((await s.ok('group/create', { ssid, name: `Outbound ${g}` })).data as { groupId: number }).groupId;
    groupIds.push(groupId);
    for (let i = 0; i < opts.agentsPerGroup; i++) {
      const phone = `9${String(n).padStart(3, '0')}${String(g).padStart(3, '0')}${String(i).padStart(3, '0')}`;
      const a = await s.ok('Agent/create', {
        ssid,
        name: `Agent ${g}-${i}`,
        email: `agent-${n}-${g}-${i}@bench.test`,
        password: 'agent-password',
        phone,
        call_pass: '12345678',
        dest_type: 'MOBILE',
        dest_value: phone,
        role,
        group: { [String(groupId)]: { receive_call: 'Y' } },
      });
      agentIds.push((a.data as { agentId: number }).agentId);
    }
  }
  if (opts.login !== false) {
    const ts = s.clock.now() / 1000;
    await s.ok('events/ingest', { ssid, events: agentIds.map((agentId) => ({ eventId: `login-${n}-${agentId}`, type: 'agent.login', ts, agentId })) });
  }
  const api = await s.ok('auth/token', { ssid });
  return { accountId, ssid, groupIds, agentIds, did, api: { userId: String(api.userId), token: String(api.token) } };
}

/** A contact list of `count` distinct numbers (imported 10,000 a request). */
export async function contactList(s: BenchService, w: CampaignWorld, count: number, base: number): Promise<number> {
  const clId = ((await s.ok('contactList/create', { ssid: w.ssid, name: `List ${base}` })).data as { clId: number }).clId;
  for (let from = 0; from < count; from += 10_000) {
    const records = Array.from({ length: Math.min(10_000, count - from) }, (_, i) => ({ number: String(base + from + i) }));
    await s.ok('contactList/import', { ssid: w.ssid, clId, records });
  }
  return clId;
}

export async function startedCampaign(s: BenchService, w: CampaignWorld, settings: Record<string, unknown>): Promise<number> {
  const campaignId = (
    (await s.ok('campaign/create', { ssid: w.ssid, name: 'Bench', did: w.did, callingHours: ALL_DAY, ...settings })).data as { campaignId: number }
  ).campaignId;
  await s.ok('campaign/start', { ssid: w.ssid, campaignId });
  return campaignId;
}

/**
 * `count` finished dials of a campaign before its start (outside its
 * abandon window, so its pacing is not moved by them): what a predictive
 * campaign's look-ahead learns from (`samplesOf`). Every third answered by
 * a person 5–25 s after the dial, talked 60–109 s with 0–9 s of wrap-up;
 * every third a machine 5–21 s after; the rest no answer (25 s): about 40
 * (seconds, who) groups in a campaign's last 200, as §13's world gives. Written
 * straight to the table: no switch needed to have placed them.
 */
export async function seedDialHistory(s: BenchService, accountId: number, campaignId: number, count: number, before: number): Promise<void> {
  const rows = Array.from({ length: count }, (_, i) => {
    const at = before - (count - i) * 30;
    const human = i % 3 === 0;
    const machine = i % 3 === 1;
    const answered = human ? at + 5 + (i % 21) : machine ? at + 5 + (i % 17) : null;
    return {
      call_id: `obd-hist-${campaignId}-${i}`,
      contact_id: 1_000_000 + i,
      number: String(15_000_000_000 + campaignId * 10_000 + i),
      dialled_at: at,
      connected_at: answered,
      answered_by: human ? 'human' : machine ? 'machine' : null,
      agent_answered_at: human ? answered! + 1 : null,
      ended_at: human ? answered! + 61 + (i % 50) : machine ? answered! + 8 : at + 25,
      outcome: human ? 'completed' : machine ? 'machine' : 'no_answer',
      wrap_secs: human ? i % 10 : 0,
    };
  });
  await s.db.run(
    `INSERT INTO campaign_calls (account_id, call_id, campaign_id, contact_id, number, attempt, predictive, dialled_at, connected_at, answered_by, agent_answered_at, ended_at, outcome, wrap_secs)
     SELECT CAST($1 AS BIGINT), j.call_id, CAST($2 AS BIGINT), j.contact_id, j.number, 1, 1, j.dialled_at, j.connected_at, j.answered_by, j.agent_answered_at, j.ended_at, j.outcome, j.wrap_secs
     FROM ${dialectOf(s.db).jsonRows(3, 'j', [
       ['call_id', 'text'],
       ['contact_id', 'bigint'],
       ['number', 'text'],
       ['dialled_at', 'bigint'],
       ['connected_at', 'bigint'],
       ['answered_by', 'text'],
       ['agent_answered_at', 'bigint'],
       ['ended_at', 'bigint'],
       ['outcome', 'text'],
       ['wrap_secs', 'integer'],
     ])}`,
    [accountId, campaignId, JSON.stringify(rows)],
  );
  // Written around the dialer's one writer of answers and outcomes: the abandon window's counters counted from them.
  await s.db.transaction((tx) => new AbandonWindowRepository(tenant(tx, accountId)).recount(campaignId));
}
