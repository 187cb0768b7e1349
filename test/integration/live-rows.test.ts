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
import { LiveStateRepository, type WorkingSetRead } from '../../src/modules/events/live-state.repository.js';
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
    it('the working set read as JSON (SQLite) equals the plain read, double for double', async () => {
      const t = await freshDatabase(dialect);
      try {
        await migrate(t.db);
        const q = tenant(t.db, 1);
        // Doubles from random bits (subnormals, huge, negative zero included) and strings JSON must escape.
        let seed = 20261130;
        const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
        const bits = new DataView(new ArrayBuffer(8));
        const anyDouble = (): number => {
          bits.setUint32(0, random() * 2 ** 32);
          bits.setUint32(4, random() * 2 ** 32);
          const v = bits.getFloat64(0);
          return Number.isFinite(v) ? v : random();
        };
        const specials = [0, -0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.1 + 0.2, 1 / 3, 1_700_000_000.123];
        const dbl = (i: number) => (i < specials.length ? specials[i]! : i % 2 === 0 ? anyDouble() : 1_700_000_000 + random() * 1e6);
        // PostgreSQL's text holds no NUL character; SQLite's does.
        const nul = dialect === 'sqlite' ? '\u0000' : '';
        const str = (i: number) => `s${i}"\\${nul}\u001f\u2028é😀`;
        const agents: AgentLive[] = [];
        for (let i = 0; i < 40; i++) {
          const row = await q.get<{ id: number }>(`INSERT INTO agents (account_id, name, email, create_date) VALUES ($1, $2, $3, 0) RETURNING id`, [
            `a${i}`,
            `a${i}@example.com`,
          ]);
          agents.push({
            ...full,
            agentId: Number(row!.id),
            loginType: str(i),
            loginAt: dbl(i),
            availSince: dbl(i + 1),
            breakAt: i % 3 === 0 ? null : dbl(i + 2),
            wrapupAt: dbl(i + 3),
            ringAt: dbl(i + 4),
            callAt: dbl(i + 5),
            dayKey: str(i + 1),
            availSecs: dbl(i + 6),
            talkSecs: dbl(i + 7),
            calls: i * 1000,
            lastTs: dbl(i + 8),
            seq: 2 ** 40 + i,
          });
        }
        const live: CallLive[] = [];
        for (let i = 0; i < 40; i++) {
          live.push({
            ...calls[0]!,
            callId: `call-${i}-${str(i)}`,
            queuedAt: dbl(i),
            caller: str(i + 2),
            ringAt: dbl(i + 1),
            answeredAt: i % 4 === 0 ? null : dbl(i + 2),
            agentSince: dbl(i + 3),
            holdAt: dbl(i + 4),
            holdSecs: dbl(i + 5),
            hits: [[i, dbl(i + 6), dbl(i + 7), 1]],
            legs: [[i, 0, dbl(i + 8), null, dbl(i + 9)]],
            lastTs: dbl(i + 10),
          });
        }
        await bulkWrite(q, 'live_agents', AGENT_COLUMNS, ['agent_id'], agents.map(agentRow), 'update');
        await bulkWrite(q, 'live_calls', CALL_COLUMNS, ['call_id'], live.map(callRow), 'update');
        await q.run(`INSERT INTO calls (account_id, call_id, queued_at, ended_at, outcome) VALUES ($1, $2, 0, 1, 'answered')`, [`done-${str(0)}`]);

        // Every number as the shortest text that parses back to it: equal texts are equal doubles (-0 apart from 0).
        const exact = (v: unknown): unknown =>
          typeof v === 'number'
            ? Object.is(v, -0)
              ? '-0'
              : String(v)
            : Array.isArray(v)
              ? v.map(exact)
              : v !== null && typeof v === 'object'
                ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, exact(x)]))
                : v;
        const read = async (how: WorkingSetRead) => {
          const repo = new LiveStateRepository(q, how);
          const a = await repo.agents(agents.map((x) => x.agentId));
          const c = await repo.callsAndEnded([...live.map((x) => x.callId), `done-${str(0)}`, 'unknown']);
          return {
            agents: exact([...a.values()].sort((x, y) => x!.agentId - y!.agentId)),
            calls: exact([...c.calls.values()].sort((x, y) => (x.callId < y.callId ? -1 : 1))),
            ended: [...c.ended],
          };
        };
        const json = await read('json');
        const plain = await read('values');
        expect(json).toEqual(plain);
        // What was written, as stored: SQLite keeps -0 as 0 (both reads); JSON.stringify writes -0 as 0 too.
        const stored = (v: unknown) => exact(JSON.parse(JSON.stringify(v)));
        expect(plain.agents).toEqual(stored(agents));
        expect(plain.calls).toEqual(stored([...live].sort((x, y) => (x.callId < y.callId ? -1 : 1))));
        expect(plain.ended).toEqual([`done-${str(0)}`]);
      } finally {
        await t.db.close();
        await t.drop();
      }
    });
  });
}
