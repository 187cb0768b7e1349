import fs from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { AsteriskConnector } from '../../src/connectors/asterisk/connector.js';
import { ConnectorRuntime } from '../../src/connectors/core/index.js';
import { createAgent, createGroup } from '../helpers/admin.js';
import { FakeAmi } from '../helpers/ami-server.js';
import { createTenant, type Session } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { realworld } from '../helpers/realworld.js';
import { baseUrl, closeReaders } from '../helpers/sse.js';
import { waitFor } from './asterisk.fixtures.js';

afterAll(closeReaders);

/**
 * Real AMI traffic (../shared/realworld/ami/) replayed through
 * `callcenter connect asterisk`: what the switch said is what the service
 * reports. The figures are read from the traffic itself, here, by a reading
 * of its own (a split on blank lines), not the connector's parser.
 */

type Tenant = Session & { accountId: number };
type Frame = Map<string, string>;

/** AMI text → messages: `Key: Value` lines, a blank line ending each. */
function frames(text: string): Frame[] {
  return text
    .replace(/\r\n/g, '\n')
    .split(/\n\s*\n/)
    .map((block) => new Map(block.split('\n').flatMap((l): Array<[string, string]> => (/^([\w()-]+): ?(.*)$/.test(l) ? [[RegExp.$1, RegExp.$2]] : []))))
    .filter((f) => f.size > 0);
}

/** An Asterisk console with `manager debug on`: each event follows `<-- Examining AMI event: -->`, console lines between. */
function consoleFrames(file: string): string {
  return fs
    .readFileSync(realworld(file), 'utf8')
    .split('<-- Examining AMI event: -->\n')
    .slice(1)
    .map((chunk) => `${chunk.split('\n\n')[0]!.replace(/\n/g, '\r\n')}\r\n\r\n`)
    .join('');
}

const events = (fs: Frame[], name: string) => fs.filter((f) => f.get('Event') === name);
const extOf = (member: string) => member.replace(/^[^/]*\//, '').replace(/[@-].*$/, '');

async function connect(h: Harness, t: Tenant, fake: FakeAmi) {
  const token = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' });
  const lines: string[] = [];
  const rt = new ConnectorRuntime({
    conn: { api: await baseUrl(h), userId: token.body.userId, token: token.body.token },
    queueMap: new Map(),
    agentMap: new Map(),
    statusPort: null,
    switchName: 'asterisk',
    log: (l) => lines.push(l),
    batchDelayMs: 5,
    streamBackoffMs: 50,
    now: () => h.clock.now(),
  });
  const connector = new AsteriskConnector(
    rt,
    {
      host: '127.0.0.1',
      port: fake.port,
      username: 'callcenter',
      secret: 's3cret',
      didVar: null,
      takeoverContext: 'x',
      originateContext: 'x',
      minBackoffMs: 50,
      maxBackoffMs: 200,
    },
    () => h.clock.now(),
  );
  await connector.start();
  await waitFor(() => connector.reconciled >= 1, 'the first reconciliation');
  const sync = async () => {
    await connector.ami.action([['Action', 'Ping']]);
    await connector.idle();
  };
  return { rt, connector, lines, sync, stop: () => connector.stop() };
}

/** An account with a group per queue and an agent per member extension. */
async function account(h: Harness, queues: string[], extensions: string[]) {
  const t: Tenant = await createTenant(h);
  const groups: number[] = [];
  for (const name of queues) groups.push(await createGroup(h, t, { name }));
  const agentOf = new Map<string, number>();
  for (const ext of extensions)
    agentOf.set(ext, (await createAgent(h, t, { group: groups, name: `Agent ${ext}`, dest_type: 'SIP', dest_value: `sip:${ext}@pbx.example.com` })).agentId);
  return { t, agentOf };
}

async function callRows(h: Harness, t: Tenant) {
  return h.db.all<{ call_id: string; outcome: string; answered_by: number | null; wait_secs: number; talk_secs: number }>(
    'SELECT call_id, outcome, answered_by, wait_secs, talk_secs FROM calls WHERE account_id = $1 ORDER BY call_id',
    [t.accountId],
  );
}

async function live(h: Harness, t: Tenant) {
  const calls = await h.db.all('SELECT call_id FROM live_calls WHERE account_id = $1', [t.accountId]);
  const agents = await h.db.all<{ agent_id: number; logged_in: number; break_reason: string | null; ring_call: string | null }>(
    'SELECT * FROM live_agents WHERE account_id = $1',
    [t.accountId],
  );
  return { calls: calls.length, agents: new Map(agents.map((a) => [Number(a.agent_id), a])) };
}

forEachDatabase('connect asterisk: real traffic', (use) => {
  it('Asterisk 13 (manager debug console): the queue call as its events tell it; HoldTime and TalkTime without timestampevents; a replay changes nothing', async () => {
    const h = use();
    const text = consoleFrames('ami/callme_asterisk13_cli_manager_debug_queue_call.log');
    const fs13 = frames(text);
    const joins = events(fs13, 'QueueCallerJoin');
    const connects = events(fs13, 'AgentConnect');
    const completes = events(fs13, 'AgentComplete');
    const members = [...new Set(events(fs13, 'AgentCalled').map((e) => e.get('Interface')!))];
    const { t, agentOf } = await account(h, [...new Set(joins.map((j) => j.get('Queue')!))], members.map(extOf));
    const fake = new FakeAmi();
    // The members QueueStatus would report at connect: the ones the traffic shows in QueueMemberStatus.
    fake.status.members = events(fs13, 'QueueMemberStatus').map((e) => ({ queue: e.get('Queue')!, location: e.get('Interface')! }));
    await fake.start();
    try {
      const sw = await connect(h, t, fake);
      await fake.send(text);
      await sw.sync();
      await sw.stop();
      const rows = await callRows(h, t);
      const want = joins.map((j) => {
        const uid = j.get('Uniqueid')!;
        const connect = connects.find((c) => c.get('Uniqueid') === uid);
        const complete = completes.find((c) => c.get('Uniqueid') === uid);
        return {
          call_id: uid,
          outcome: complete && connect ? 'completed' : 'abandoned',
          answered_by: connect ? agentOf.get(extOf(connect.get('Interface')!))! : null,
          wait_secs: Number(connect?.get('HoldTime') ?? 0),
          talk_secs: Number(complete?.get('TalkTime') ?? 0),
        };
      });
      expect(
        rows.map((r) => ({
          ...r,
          answered_by: r.answered_by === null ? null : Number(r.answered_by),
          wait_secs: Number(r.wait_secs),
          talk_secs: Number(r.talk_secs),
        })),
      ).toEqual(want);
      expect(sw.rt.health.report()).toMatchObject({ rejected: 0 });
      const after = await live(h, t);
      expect(after.calls).toBe(0);
      for (const a of after.agents.values()) expect(a.ring_call ?? null).toBeNull();

      // The same traffic again, through a new connector (a restart): duplicates only.
      const again = await connect(h, t, fake);
      await fake.send(text);
      await again.sync();
      await again.stop();
      expect(again.rt.health.report()).toMatchObject({ rejected: 0 });
      expect(await callRows(h, t)).toEqual(rows);
    } finally {
      await fake.close();
    }
  });

  it.each(['ami/panoramisk_agent_loggued_in.yaml', 'ami/panoramisk_agent_not_in_pause.yaml'])(
    'Asterisk 11 (%s): Agent/… members by their MemberName, static members from QueueMemberStatus, QueueMemberPaused; another client’s actions and answers ignored',
    async (file) => {
      const h = use();
      const text = fs.readFileSync(realworld(file), 'utf8');
      const fr = frames(text);
      const memberEvents = fr.filter((f) => /^QueueMember(Added|Removed|Status|Paused|Pause)$/.test(f.get('Event') ?? ''));
      // What the traffic says of each member at its end: in its queue or not, paused or not.
      const state = new Map<string, { in: boolean; paused: boolean }>();
      for (const e of memberEvents) {
        const name = e.get('MemberName')!;
        const s = state.get(name) ?? { in: false, paused: false };
        s.in = e.get('Event') !== 'QueueMemberRemoved';
        if (e.has('Paused')) s.paused = e.get('Paused') === '1';
        state.set(name, s);
      }
      const queues = [...new Set(memberEvents.map((e) => e.get('Queue')!))];
      const { t, agentOf } = await account(h, queues, [...state.keys()].map(extOf));
      const fake = new FakeAmi();
      await fake.start();
      try {
        const sw = await connect(h, t, fake);
        await fake.send(text);
        await sw.sync();
        await sw.stop();
        expect(sw.rt.health.report()).toMatchObject({ rejected: 0 });
        const { agents } = await live(h, t);
        for (const [name, s] of state) {
          const a = agents.get(agentOf.get(extOf(name))!);
          expect([name, Number(a?.logged_in ?? 0) === 1, a?.break_reason != null]).toEqual([name, s.in, s.in && s.paused]);
        }
      } finally {
        await fake.close();
      }
    },
  );

  it('Asterisk 11 QueueStatus: as the answer to the connector’s own action its static members are logged in (paused: on break); sent with another client’s ActionID it changes nothing; no CoreShowChannels right', async () => {
    const h = use();
    const text = `${fs.readFileSync(realworld('ami/panoramisk_queue_status.yaml'), 'utf8').trimEnd()}\n\n`;
    const fr = frames(text);
    const members = events(fr, 'QueueMember');
    const queues = [...new Set(members.map((m) => m.get('Queue')!))];
    const exts = members.map((m) => extOf(m.get('Name')!));

    // Sent unsolicited (its ActionID is another client's): nothing.
    const other = await account(h, queues, exts);
    const fake1 = new FakeAmi();
    await fake1.start();
    try {
      const sw = await connect(h, other.t, fake1);
      await fake1.send(text);
      await sw.sync();
      await sw.stop();
      const { agents } = await live(h, other.t);
      expect([...agents.values()].filter((a) => Number(a.logged_in) === 1)).toEqual([]);
    } finally {
      await fake1.close();
    }

    // The answer to the connector's own QueueStatus, from a user without the `reporting` class (CoreShowChannels refused).
    const { t, agentOf } = await account(h, queues, exts);
    const fake = new FakeAmi();
    fake.queueStatusRaw = text;
    fake.denied.add('CoreShowChannels');
    await fake.start();
    try {
      const sw = await connect(h, t, fake);
      await sw.stop();
      expect(sw.lines.some((l) => l.includes('CoreShowChannels failed'))).toBe(true);
      const { agents } = await live(h, t);
      for (const m of members) {
        const a = agents.get(agentOf.get(extOf(m.get('Name')!))!)!;
        expect([m.get('Name'), Number(a.logged_in), a.break_reason !== null]).toEqual([m.get('Name'), 1, m.get('Paused') === '1']);
      }
    } finally {
      await fake.close();
    }
  });
});
