import { describe, expect, it } from 'vitest';
import { createTenant } from '../helpers/factories.js';
import { startHarness, stopHarness } from '../helpers/harness.js';
import { testDialects } from '../helpers/databases.js';
import { gatherRollups } from '../../src/db/rollup-write.js';
import type { Queryable } from '../../src/db/types.js';
import type { CallRecord } from '../../src/modules/calls/call-record.js';
import type { AgentSpan } from '../../src/modules/events/agent-time.js';
import { ReportAgentTimeSink, ReportCallSink } from '../../src/modules/report/rollup/report-sinks.js';

/*
 * The report roll-ups of an ingest transaction are gathered (gatherRollups,
 * src/db/rollup-write.ts): the finished calls and the agent spans add to one
 * batch, written once before the commit. The plain path is each sink writing
 * its own batch at once. The same calls and spans (late corrections
 * included) go to two accounts of one database, one each way: every report
 * row must be the same, and the gathered one written in fewer statements.
 */

const TABLES: Array<[string, string]> = [
  ['report_queue', 'bucket, group_id'],
  ['report_agent', 'bucket, agent_id'],
  ['report_agent_breaks', 'bucket, agent_id, reason'],
  ['report_agent_day', 'day_start, agent_id, tz'],
  ['report_agent_breaks_day', 'day_start, agent_id, reason, tz'],
];

/** A small deterministic generator (the same input on both accounts and both databases). */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

function traffic(start: number, agents: number): { records: CallRecord[]; spans: AgentSpan[] } {
  const r = random(34);
  const records: CallRecord[] = [];
  const spans: AgentSpan[] = [];
  for (let i = 0; i < 80; i++) {
    // Over two days and across quarter-hour edges.
    const queuedAt = start + Math.floor(r() * 2 * 86_400);
    const agentId = 1 + Math.floor(r() * agents);
    const answered = r() < 0.6;
    const ring = Math.floor(r() * 20);
    const wait = ring + Math.floor(r() * 30);
    records.push({
      accountId: 0,
      callId: `g-${i}`,
      queuedAt,
      endedAt: queuedAt + wait + 100,
      groupId: r() < 0.8 ? 7 : null,
      did: null,
      campaignId: null,
      direction: 'inbound',
      caller: null,
      retryOf: r() < 0.1 ? `g-${i - 1}` : null,
      answeredBy: answered ? agentId : null,
      answeredAt: answered ? queuedAt + wait : null,
      talkSecs: answered ? 100 : 0,
      holdSecs: answered && r() < 0.3 ? 12 : 0,
      waitSecs: wait,
      outcome: answered ? 'completed' : r() < 0.7 ? 'abandoned' : 'failed',
      hits: [{ seq: 0, agentId, ringAt: queuedAt + wait - ring, ringSecs: ring, answered }],
    });
    const kinds: AgentSpan['kind'][] = ['available', 'ringing', 'talk', 'hold', 'wrap', 'break'];
    const kind = kinds[Math.floor(r() * kinds.length)]!;
    const from = queuedAt + Math.floor(r() * 600);
    spans.push({ agentId, from, to: from + 1 + Math.floor(r() * 2000), kind, reason: kind === 'break' ? (r() < 0.5 ? 'lunch' : '') : null, callId: null });
  }
  return { records, spans };
}

/** The transaction's executor with a count of its statements that set report marks (one or a few a written batch). */
function counting(tx: Queryable): { tx: Queryable; marks: () => number } {
  let marks = 0;
  const note = (sql: string) => void (sql.includes('report_versions') && marks++);
  return {
    tx: {
      dialect: tx.dialect,
      all: (sql, params) => (note(sql), tx.all(sql, params)),
      get: (sql, params) => (note(sql), tx.get(sql, params)),
      run: (sql, params) => (note(sql), tx.run(sql, params)),
      allValues: (sql, params) => (note(sql), tx.allValues(sql, params)),
      getValues: (sql, params) => (note(sql), tx.getValues(sql, params)),
    },
    marks: () => marks,
  };
}

describe.each(testDialects())('report roll-ups gathered in the ingest transaction (%s)', (dialect) => {
  it('the same rows as each sink writing its own, in fewer writes', async () => {
    const h = await startHarness(dialect);
    try {
      const start = Math.floor(Date.UTC(2026, 10, 2, 23, 50) / 1000);
      const { records, spans } = traffic(start, 5);
      // Late corrections: five calls taken back and given again with another outcome.
      const corrected = records
        .slice(0, 5)
        .map((c) => ({ ...c, answeredAt: null, answeredBy: null, outcome: 'abandoned' as const, hits: c.hits.map((x) => ({ ...x, answered: false })) }));
      const calls = new ReportCallSink();
      const agentTime = new ReportAgentTimeSink();
      const apply = async (tx: Queryable, accountId: number) => {
        await calls.apply(tx, accountId, records, 1);
        await agentTime.apply(tx, accountId, spans);
        await calls.apply(tx, accountId, records.slice(0, 5), -1);
        await calls.apply(tx, accountId, corrected, 1);
      };
      const gathered = (await createTenant(h, { timezone: 'Europe/Berlin' })).accountId;
      const plain = (await createTenant(h, { timezone: 'Europe/Berlin' })).accountId;
      let gatheredMarks = 0;
      let plainMarks = 0;
      await h.db.transaction(async (raw) => {
        const { tx, marks } = counting(raw);
        await gatherRollups(tx, () => apply(tx, gathered));
        gatheredMarks = marks();
      });
      await h.db.transaction(async (raw) => {
        const { tx, marks } = counting(raw);
        await apply(tx, plain);
        plainMarks = marks();
      });
      for (const [table, order] of TABLES) {
        const rows = async (accountId: number) => h.db.all(`SELECT * FROM ${table} WHERE account_id = $1 ORDER BY ${order}`, [accountId]);
        const a = (await rows(gathered)).map(({ account_id: _, ...rest }) => rest);
        const b = (await rows(plain)).map(({ account_id: _, ...rest }) => rest);
        expect(a.length, table).toBeGreaterThan(0);
        expect(a, table).toEqual(b);
      }
      // One written batch against four (one a sink call).
      expect(gatheredMarks).toBeGreaterThan(0);
      expect(gatheredMarks * 4).toBeLessThanOrEqual(plainMarks);
    } finally {
      await stopHarness(h);
    }
  });
});
