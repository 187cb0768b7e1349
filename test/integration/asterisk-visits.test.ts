import { afterAll, expect, it } from 'vitest';
import { amiEvent, channelFields } from '../helpers/ami-server.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { closeReaders } from '../helpers/sse.js';
import { nowSec } from './events.fixtures.js';
import { agentLive, caller, hits, queueCalls, startSwitch, type Row } from './asterisk.fixtures.js';

afterAll(closeReaders);

/*
 * PRODUCT.md §16 end to end through the service: a caller's queue visits on
 * one channel (timeout, then a loop back), and ringall. The AMI text is
 * written as app_queue writes it (asterisk.fixtures.ts).
 */

async function calls(h: Harness, accountId: number): Promise<Row[]> {
  return h.db.all<Row>('SELECT call_id, outcome, answered_by, retry_of, wait_secs FROM calls WHERE account_id = $1 ORDER BY queued_at', [accountId]);
}

const state = (live: Map<number, Row>, id: number) => (live.get(id)!.ex as Row).state;

forEachDatabase('connect asterisk: every queue visit a call, ringall', (use) => {
  it('a timeout (QueueCallerAbandon) then a join on the same channel: two calls, the second retrying the first and answered; nothing left waiting', async () => {
    const h = use();
    const sw = await startSwitch(h);
    try {
      const T = nowSec(h);
      const c = caller('1732460900.5', '919800000005', sw.did);
      const leave = (ts: number) => amiEvent('QueueCallerLeave', 'agent,all', ts, { ...channelFields('', c.leg), Queue: 'sales', Position: 1, Count: 0 });
      // The first visit times out after 30 s (Asterisk reports QueueCallerAbandon, then Leave); the dialplan sends the caller back in.
      await sw.fake.send(c.join(T) + c.called(T + 1, '5001') + c.noAnswer(T + 16, '5001', 15000) + c.abandon(T + 30, 30) + leave(T + 30));
      await sw.fake.send(c.join(T + 31) + c.called(T + 32, '5002') + leave(T + 35) + c.connect(T + 35, '5002', 4, 3000));
      await sw.sync();
      expect(await queueCalls(h, sw.t.ssid)).toMatchObject([{ callId: '1732460900.5-v2', state: 'connected', agentId: sw.ids.a2 }]);
      await sw.fake.send(c.complete(T + 95, '5002', 4, 60) + c.hangup(T + 95));
      await sw.sync();
      expect(await queueCalls(h, sw.t.ssid)).toEqual([]);
      expect(
        (await calls(h, sw.t.accountId)).map((r) => [
          r.call_id,
          r.outcome,
          r.answered_by === null ? null : Number(r.answered_by),
          r.retry_of,
          Number(r.wait_secs),
        ]),
      ).toEqual([
        ['1732460900.5', 'abandoned', null, null, 30],
        ['1732460900.5-v2', 'completed', sw.ids.a2, '1732460900.5', 4],
      ]);
      expect(sw.rt.health.report()).toMatchObject({ rejected: 0 });
    } finally {
      await sw.stop();
    }
  });

  it('an exit key (QueueCallerLeave, the dialplan goes on): the visit ends there, the member ringing is free', async () => {
    const h = use();
    const sw = await startSwitch(h);
    try {
      const T = nowSec(h);
      const c = caller('1732461000.6', '919800000006', sw.did);
      const leave = amiEvent('QueueCallerLeave', 'agent,all', T + 9, { ...channelFields('', c.leg), Queue: 'sales', Position: 1, Count: 0 });
      const next = amiEvent('Newexten', 'dialplan,all', T + 9, { ...channelFields('', c.leg), Extension: 's', Application: 'VoiceMail', AppData: '100' });
      await sw.fake.send(c.join(T) + c.called(T + 1, '5001') + leave + next);
      await sw.sync();
      expect(await queueCalls(h, sw.t.ssid)).toEqual([]);
      expect(state(await agentLive(h, sw.t.ssid), sw.ids.a1)).toBe('available');
      expect((await calls(h, sw.t.accountId)).map((r) => [r.call_id, r.outcome, Number(r.wait_secs)])).toEqual([['1732461000.6', 'abandoned', 9]]);
    } finally {
      await sw.stop();
    }
  });

  it('ringall: two members ring, the second answers; the first one’s offer ends as missed at that answer, no one is left ringing', async () => {
    const h = use();
    const sw = await startSwitch(h);
    try {
      const T = nowSec(h);
      const c = caller('1732461100.7', '919800000007', sw.did);
      await sw.fake.send(c.join(T) + c.called(T + 1, '5001') + c.called(T + 1, '5002'));
      await sw.sync();
      expect(await queueCalls(h, sw.t.ssid)).toMatchObject([{ state: 'ringing', ringingAgentId: sw.ids.a1 }]);
      // No AgentRingNoAnswer comes for 5001 (ringall): 5002 answers.
      await sw.fake.send(c.connect(T + 6, '5002', 6, 5000));
      await sw.sync();
      const live = await agentLive(h, sw.t.ssid);
      expect([state(live, sw.ids.a1), state(live, sw.ids.a2)]).toEqual(['available', 'oncall']);
      await sw.fake.send(c.complete(T + 36, '5002', 6, 30));
      await sw.sync();
      // 5001 rang 5 s and missed; 5002 answered.
      expect(await hits(h, sw.t.ssid, 'TC,AC,MC')).toEqual({ [sw.ids.a1]: { TC: 1, AC: 0, MC: 1 }, [sw.ids.a2]: { TC: 1, AC: 1, MC: 0 } });
      expect(sw.rt.health.report()).toMatchObject({ rejected: 0 });
    } finally {
      await sw.stop();
    }
  });
});
