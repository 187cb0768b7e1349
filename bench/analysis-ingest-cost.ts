/**
 * What the analysis roll-ups' 5-minute slots and per-hour change marks
 * (migration 100) cost events/ingest on SQLite: events/ingest in one
 * process with the service's sinks (analysis roll-ups, report roll-ups,
 * agent time), on two SQLite databases, alternating rounds (each in
 * another order) so machine noise hits both alike; the medians, their
 * ratio and the median of the rounds' ratios:
 *  - "no fine": the roll-up writes to analysis_fine and
 *    analysis_hour_versions dropped (what ingest cost before migration 100);
 *  - "with fine": as the service runs.
 * The traffic is bench/ingest-live's cycle (login, then per agent queued,
 * ringing, answered, ended, wrap-up start/end), batches of 500, 200 agents;
 * the clock advancing 0.5 s per event (a new 5-minute slot every batch or
 * so: rows inserted), or with --now at the current second as ingest-live
 * sends (the same slot's rows updated).
 *
 *   npx tsx bench/analysis-ingest-cost.ts [--rounds 5] [--batches 40] [--now]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { parseArgs } from '../src/cli/args.js';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config/config.js';
import { migrate } from '../src/db/migrate.js';
import { SqliteDatabase } from '../src/db/sqlite.js';
import type { Database, Queryable } from '../src/db/types.js';
import { AccountService } from '../src/modules/account/account.service.js';
import { RollupSink } from '../src/modules/analysis/rollup/rollup-sink.js';
import { CallHistoryService } from '../src/modules/calls/call-history.service.js';
import { allSinks, type CallRecordSink } from '../src/modules/calls/call-record-sink.js';
import { EventsService } from '../src/modules/events/events.service.js';
import { ReportAgentTimeSink, ReportCallSink } from '../src/modules/report/rollup/report-sinks.js';
import { median } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const ROUNDS = Number(options.rounds ?? 5);
const BATCHES = Number(options.batches ?? 40);
const NOW = options.now !== undefined;

/** The roll-up sink with its statements on analysis_fine and analysis_hour_versions dropped. */
function withoutFine(sink: CallRecordSink): CallRecordSink {
  const skip = /^INSERT INTO analysis_(fine|hour_versions) /;
  const filtered = (tx: Queryable): Queryable => ({
    dialect: tx.dialect,
    all: (sql, params) => tx.all(sql, params),
    get: (sql, params) => tx.get(sql, params),
    allValues: (sql, params) => tx.allValues(sql, params),
    run: (sql, params) => (skip.test(sql) ? Promise.resolve({ changes: 0 }) : tx.run(sql, params)),
  });
  return { apply: (tx, accountId, records, sign) => sink.apply(filtered(tx), accountId, records, sign) };
}

async function tenantWithAgents(db: Database, n: number): Promise<{ accountId: number; agents: number[] }> {
  const accountId = await new AccountService(db, systemClock).create({ username: 'bench-ingest', password: 'bench-password', name: 'bench' });
  await db.run('INSERT INTO groups (account_id, group_id, name, created_at) VALUES ($1, 7, $2, 0)', [accountId, 'Group 7']);
  const agents: number[] = [];
  for (let i = 0; i < n; i++) {
    const row = await db.get<{ id: number }>('INSERT INTO agents (account_id, name, email, create_date) VALUES ($1, $2, $3, 0) RETURNING id', [
      accountId,
      `Agent ${i}`,
      `bench-${i}@example.com`,
    ]);
    agents.push(Number(row!.id));
  }
  return { accountId, agents };
}

/** bench/ingest-live.ts's cycle, one call at a time per agent, the clock advancing 0.5 s per event. */
function traffic(agents: number[], tag: string) {
  const phase = new Array<number>(agents.length).fill(-1);
  const call = new Array<string>(agents.length).fill('');
  let n = 0;
  let next = 0;
  let ts = Math.floor(Date.now() / 1000) - 30 * 86400;
  return (count: number): unknown[] => {
    const out: unknown[] = [];
    if (NOW) ts = Date.now() / 1000;
    while (out.length < count) {
      const i = next;
      next = (next + 1) % agents.length;
      const agentId = agents[i]!;
      const p = phase[i]!;
      const id = `${tag}-${n++}`;
      if (!NOW) ts += 0.5;
      if (p === -1) out.push({ eventId: id, type: 'agent.login', ts, agentId });
      else if (p === 0) {
        call[i] = `${tag}-c${n}`;
        out.push({ eventId: id, type: 'call.queued', ts, callId: call[i], groupId: 7, did: '18005550100', caller: `9198${String(n % 1e8).padStart(8, '0')}` });
      } else if (p === 1) out.push({ eventId: id, type: 'call.ringing', ts, callId: call[i], agentId });
      else if (p === 2) out.push({ eventId: id, type: 'call.answered', ts, callId: call[i], agentId });
      else if (p === 3) out.push({ eventId: id, type: 'call.ended', ts, callId: call[i] });
      else if (p === 4) out.push({ eventId: id, type: 'agent.wrapup.start', ts, agentId });
      else out.push({ eventId: id, type: 'agent.wrapup.end', ts, agentId });
      phase[i] = p === 5 ? 0 : p + 1;
    }
    return out;
  };
}

interface Variant {
  name: string;
  db: Database;
  app: { close(): Promise<unknown> };
  events: EventsService;
  accountId: number;
  gen: (count: number) => unknown[];
  eps: number[];
}
const variants: Variant[] = [];
for (const [name, fine] of [
  ['no fine', false],
  ['with fine', true],
] as const) {
  const db = new SqliteDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'callcenter-analysis-ingest-')), 'callcenter.db'));
  await migrate(db);
  const { ctx, services, app } = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), db });
  const rollups = fine ? new RollupSink() : withoutFine(new RollupSink());
  const events = new EventsService(ctx, {
    accounts: services.accounts,
    history: new CallHistoryService(db, allSinks(rollups, new ReportCallSink())),
    agentTime: new ReportAgentTimeSink(),
  });
  const t = await tenantWithAgents(db, 200);
  variants.push({ name, db, app, events, ...t, gen: traffic(t.agents, name.replace(' ', '-')), eps: [] as number[] });
}
for (let round = 0; round <= ROUNDS; round++) {
  // Each round in another order: none always runs first (or right after another).
  for (const v of variants.map((_, i) => variants[(i + round) % variants.length]!)) {
    const t0 = performance.now();
    let accepted = 0;
    for (let b = 0; b < BATCHES; b++) {
      const r = await v.events.ingest(v.accountId, v.gen(500));
      if (r.errors.length > 0) throw new Error(JSON.stringify(r.errors[0]));
      accepted += r.accepted;
    }
    // Round 0 warms up (JIT, prepared statements).
    if (round > 0) v.eps.push(accepted / ((performance.now() - t0) / 1000));
  }
}
const base = median(variants[0]!.eps);
console.log(
  `| SQLite events/ingest${NOW ? ' (--now)' : ''} | median events/s (rounds) | ÷ no fine: medians, median of the rounds' ratios | analysis_fine rows |\n|---|---|---|---|`,
);
for (const v of variants) {
  const m = median(v.eps);
  // Both variants run back to back in a round: a round's ratio is less exposed to the machine's drift than the medians'.
  const paired = median(v.eps.map((e, i) => e / variants[0]!.eps[i]!));
  // The rows show the variant did (or did not) write the 5-minute slots.
  const rows = Number((await v.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM analysis_fine'))?.n ?? 0);
  console.log(`| ${v.name} | ${Math.round(m)} (${v.eps.map(Math.round).join(', ')}) | ${(m / base).toFixed(2)}, ${paired.toFixed(2)} | ${rows} |`);
  await v.app.close();
  await v.db.close();
}
