import { describe, expect, it } from 'vitest';
import { bulkWrite } from '../../src/db/bulk.js';
import { migrate } from '../../src/db/migrate.js';
import { tenant } from '../../src/db/tenant.js';
import {
  AGENT_COLUMNS,
  AGENT_SELECT,
  CALL_COLUMNS,
  CALL_SELECT,
  agentFromRow,
  agentRow,
  callFromRow,
  callRow,
  type AgentRow,
  type CallRow,
} from '../../src/modules/events/live-rows.js';
import { LiveStateRepository } from '../../src/modules/events/live-state.repository.js';
import { newAgent, queuedCall, type AgentLive, type CallLive } from '../../src/modules/events/live.types.js';
import { freshDatabase, testDialects } from '../helpers/databases.js';

const full: Omit<AgentLive, 'agentId'> = {
  loggedIn: true,
  loginType: 'SIP',
  loginAt: 1_700_000_000.25,
  availSince: 1_700_000_010,
  breakReason: 'lunch',
  breakAt: 1_700_000_020.5,
  wrapupAt: 1_700_000_030,
  ringCall: 'c-ring',
  ringAt: 1_700_000_040,
  callId: 'c-talk',
  callAt: 1_700_000_050.75,
  sipStatus: 'online',
  dayKey: '2023-11-14',
  availSecs: 12.5,
  talkSecs: 99.25,
  calls: 7,
  lastTs: 1_700_000_060,
  seq: 123_456,
  lastCall: 'c-last',
  wrapCall: 'c-wrap',
};

// Every field at its empty value: a new agent's state.
const { agentId: _unused, ...bare } = newAgent(0);

const calls: CallLive[] = [
  {
    callId: 'call-full',
    state: 'connected',
    queuedAt: 1_700_000_000.5,
    groupId: 7,
    did: '8005550100',
    caller: '9195550100',
    campaignId: 'camp-1',
    direction: 'outbound',
    retryOf: 'call-before',
    ringAgent: 3,
    ringAt: 1_700_000_001,
    agentId: 4,
    answeredAt: 1_700_000_002.25,
    agentSince: 1_700_000_002.25,
    onHold: true,
    holdAt: 1_700_000_003,
    holdSecs: 4.5,
    hits: [
      [3, 1_700_000_001, 1_700_000_002, 0],
      [4, 1_700_000_001.5, null, 1],
    ],
    legs: [[4, 1, 1_700_000_002.25, null, 0]],
    lastTs: 1_700_000_003,
    seq: 88,
  },
  queuedCall('call-bare', 1_700_000_000, 0, {}),
];

/**
 * The ingest reads its working set as arrays (agentFromValues, callFromValues: faster than row
 * objects); the other reads as objects (agentFromRow, callFromRow). Both give the same state.
 */
for (const dialect of testDialects()) {
  describe(`live rows read as arrays and as objects [${dialect}]`, () => {
    it('the ingest working set equals the object read and what was written', async () => {
      const t = await freshDatabase(dialect);
      try {
        await migrate(t.db);
        const q = tenant(t.db, 1);
        const ids: number[] = [];
        for (const name of ['full', 'bare', 'never-live']) {
          const row = await q.get<{ id: number }>(`INSERT INTO agents (account_id, name, email, create_date) VALUES ($1, $2, $3, 0) RETURNING id`, [
            name,
            `${name}@example.com`,
          ]);
          ids.push(Number(row!.id));
        }
        const agents: AgentLive[] = [
          { agentId: ids[0]!, ...full },
          { agentId: ids[1]!, ...bare },
        ];
        await bulkWrite(q, 'live_agents', AGENT_COLUMNS, ['agent_id'], agents.map(agentRow), 'update');
        await bulkWrite(q, 'live_calls', CALL_COLUMNS, ['call_id'], calls.map(callRow), 'update');
        // A finished call: in the history, not live.
        await q.run(`INSERT INTO calls (account_id, call_id, queued_at, ended_at, outcome) VALUES ($1, 'call-done', 0, 1, 'answered')`);

        const repo = new LiveStateRepository(q);
        const working = await repo.agents(ids);
        const objects = await q.all<AgentRow>(`SELECT ${AGENT_SELECT} FROM live_agents l WHERE l.account_id = $1`);
        expect(working.get(ids[2]!)).toBeNull();
        for (const a of agents) {
          expect(working.get(a.agentId)).toEqual(a);
          expect(working.get(a.agentId)).toEqual(agentFromRow(objects.find((r) => Number(r.agent_id) === a.agentId)!));
        }

        const { calls: live, ended } = await repo.callsAndEnded(['call-full', 'call-bare', 'call-done', 'call-unknown']);
        expect([...ended]).toEqual(['call-done']);
        const callObjects = await q.all<CallRow>(`SELECT ${CALL_SELECT} FROM live_calls WHERE account_id = $1`);
        expect(live.size).toBe(2);
        for (const c of calls) {
          expect(live.get(c.callId)).toEqual(c);
          expect(live.get(c.callId)).toEqual(callFromRow(callObjects.find((r) => r.call_id === c.callId)!));
        }
      } finally {
        await t.db.close();
        await t.drop();
      }
    });
  });
}
