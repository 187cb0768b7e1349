import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createGroup } from '../helpers/admin.js';
import { createTenant } from '../helpers/factories.js';
import { startHarness, stopHarness, type Harness } from '../helpers/harness.js';
import { testDialects } from '../helpers/databases.js';
import type { IngestResult } from '../../src/modules/events/events.service.js';

/*
 * Batches of one account that wait for each other are applied together in
 * one transaction (src/modules/events/ingest-merge.ts). The plain path is
 * each batch alone. Two apps on two fresh databases, built alike (the same
 * account and agent ids), get the same batches: one alone, one after
 * another; the other all at once, merged. Every row the ingest writes and
 * every answer must be the same.
 */

/** The tables an ingest writes, in a stable order (the change log and the roll-ups' random change marks differ by design). */
const TABLES: Array<[string, string]> = [
  ['live_agents', 'agent_id'],
  ['live_calls', 'call_id'],
  ['calls', 'call_id'],
  ['call_hits', 'call_id, seq'],
  ['call_legs', 'call_id, seq'],
  ['agent_state_recent', '2, 3, 4'],
  ['agent_state_log', '2, 3, 4'],
  ['event_ids', 'event_id'],
  ['report_queue', 'bucket, group_id'],
  ['report_agent', 'bucket, agent_id'],
  ['report_agent_breaks', 'bucket, agent_id, reason'],
  ['report_agent_day', 'day_start, agent_id, tz'],
  ['report_agent_breaks_day', 'day_start, agent_id, reason, tz'],
  ['analysis_fine', '1, 2, 3, 4, 5'],
  ['analysis_hourly', '1, 2, 3, 4, 5'],
  ['analysis_daily', '1, 2, 3, 4, 5'],
  ['analysis_cube', '1, 2, 3, 4, 5, 6, 7'],
];

interface World {
  h: Harness;
  accountId: number;
  agents: number[];
}

async function world(h: Harness, start: number): Promise<World> {
  h.clock.set(start * 1000);
  const t = await createTenant(h);
  await createGroup(h, t, { groupId: 7 });
  const agents: number[] = [];
  for (let i = 0; i < 6; i++) agents.push((await createAgent(h, t)).agentId);
  return { h, accountId: t.accountId, agents };
}

/**
 * Six batches over six agents: logins, answered, missed and abandoned calls,
 * a break, wrap-ups; a duplicate of an earlier batch's event, an event the
 * machine refuses (an unknown call) and one parsing refuses.
 */
function batches(agents: number[], start: number): unknown[][] {
  const out: unknown[][] = [];
  let n = 0;
  let ts = start - 3600;
  const e = (type: string, fields: Record<string, unknown>) => ({ eventId: `m-${n++}`, type, ts: (ts += 7), ...fields });
  out.push(agents.map((agentId) => e('agent.login', { agentId, loginType: 'SIP' })));
  for (let b = 0; b < 5; b++) {
    const batch: unknown[] = [];
    if (b === 4) batch.push(e('agent.break.end', { agentId: agents[3] }));
    agents.forEach((agentId, i) => {
      const callId = `mc-${b}-${i}`;
      batch.push(e('call.queued', { callId, groupId: 7, caller: `91980000${b}${i}` }));
      batch.push(e('call.ringing', { callId, agentId }));
      if ((b + i) % 3 === 0) {
        batch.push(e('call.missed', { callId, agentId }));
        batch.push(e('call.ended', { callId, reason: 'abandoned' }));
      } else {
        batch.push(e('call.answered', { callId, agentId }));
        if (i === 2) batch.push(e('call.hold', { callId }), e('call.unhold', { callId }));
        batch.push(e('call.ended', { callId }));
        batch.push(e('agent.wrapup.start', { agentId }), e('agent.wrapup.end', { agentId }));
      }
      // A call left waiting into the next batch, ended there.
      if (i === 5 && b < 4) batch.push(e('call.queued', { callId: `${callId}-next`, groupId: 7 }));
      if (i === 0 && b > 0) batch.push(e('call.ended', { callId: `mc-${b - 1}-5-next`, reason: 'abandoned' }));
    });
    if (b === 3) batch.push(e('agent.break.start', { agentId: agents[3], reason: 'lunch' }));
    if (b === 2) batch.splice(1, 0, e('agent.break.start', { agentId: agents[4], reason: 'coffee' }), e('agent.break.end', { agentId: agents[4] }));
    if (b === 2) batch.push(out[1]![0], e('call.answered', { callId: 'never-queued', agentId: agents[1] }), { eventId: 'bad', type: 'call.nope', ts });
    out.push(batch);
  }
  return out;
}

async function rows(w: World): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of TABLES) out[table] = await w.h.db.all(`SELECT * FROM ${table} WHERE account_id = $1 ORDER BY ${order}`, [w.accountId]);
  return out;
}

for (const dialect of testDialects()) {
  describe(`events/ingest: batches applied together or alone [${dialect}]`, () => {
    let alone: Harness | undefined;
    let merged: Harness | undefined;
    beforeAll(async () => {
      alone = await startHarness(dialect);
      merged = await startHarness(dialect);
    });
    afterAll(async () => {
      if (alone) await stopHarness(alone);
      if (merged) await stopHarness(merged);
    });

    it('gives every request its own answer and writes the same rows as each batch alone', async () => {
      const start = Math.floor(Date.UTC(2026, 10, 22, 12, 0, 0) / 1000);
      const a = await world(alone!, start);
      const m = await world(merged!, start);
      expect(m.agents).toEqual(a.agents);
      const sent = batches(a.agents, start);

      const aloneAnswers: IngestResult[] = [];
      for (const b of sent) aloneAnswers.push(await a.h.services.events.ingest(a.accountId, b));
      const before = { ...m.h.services.events.mergeStats };
      const mergedAnswers = await Promise.all(sent.map((b) => m.h.services.events.ingest(m.accountId, b)));
      const after = m.h.services.events.mergeStats;

      // All six waited for the first: one transaction (they fit in MERGE_MAX_EVENTS).
      expect(after.batches - before.batches).toBe(sent.length);
      expect(after.transactions - before.transactions).toBe(1);
      expect(mergedAnswers).toEqual(aloneAnswers);
      expect(aloneAnswers[3]!.duplicates).toBe(1);
      expect(aloneAnswers.map((x) => x.errors.map((err) => err.code))).toEqual([[], [], [], [1012, 1001], [], []]);

      const aRows = await rows(a);
      const mRows = await rows(m);
      for (const [table] of TABLES) expect({ table, rows: mRows[table] }).toEqual({ table, rows: aRows[table] });
      expect(aRows.calls!.length).toBeGreaterThan(25);
      expect(aRows.report_agent!.length).toBeGreaterThan(0);
      expect(aRows.analysis_cube!.length).toBeGreaterThan(0);
      // The sequence: one number per applied event, merged or not.
      const seq = async (w: World) => w.h.db.get(`SELECT * FROM event_seq WHERE account_id = $1`, [w.accountId]);
      expect(await seq(m)).toEqual(await seq(a));
    });

    it('answers concurrent HTTP requests each with its own counts', async () => {
      const h = merged!;
      const t = await createTenant(h);
      await createGroup(h, t, { groupId: 7 });
      const agentId = (await createAgent(h, t)).agentId;
      const ts = h.clock.now() / 1000;
      const good = [{ eventId: 'ok-1', type: 'agent.login', agentId, loginType: 'SIP', ts }];
      const answers = await Promise.all([
        h.post('/api/v2/events/ingest', { ssid: t.ssid, events: good }),
        h.post('/api/v2/events/ingest', { ssid: t.ssid, events: [{ eventId: 'ok-1', type: 'agent.login', agentId, loginType: 'SIP', ts }] }),
        h.post('/api/v2/events/ingest', { ssid: t.ssid, events: [{ eventId: 'ok-2', type: 'agent.logout', agentId, ts: ts + 1 }] }),
      ]);
      expect(answers.map((x) => x.body.status)).toEqual(['success', 'success', 'success']);
      const data = answers.map((x) => (x.body as unknown as { data: IngestResult }).data);
      // The second sends the first's event again: a duplicate, whichever transaction applied it.
      expect(data.map((d) => [d.accepted, d.duplicates])).toEqual([
        [1, 0],
        [0, 1],
        [1, 0],
      ]);
    });
  });
}
