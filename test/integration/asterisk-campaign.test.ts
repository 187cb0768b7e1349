import { afterAll, expect, it } from 'vitest';
import { amiEvent, type Fields } from '../helpers/ami-server.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { closeReaders } from '../helpers/sse.js';
import { caller, queueCalls, startSwitch, waitFor, type Row, type Switch } from './asterisk.fixtures.js';
import { ALL_DAY, createList, op, tick } from './campaigns.fixtures.js';
import { nowSec } from './events.fixtures.js';

/*
 * Campaign dials placed by the Asterisk connector (PRODUCT.md §13; docs/asterisk.md "Outbound
 * campaigns"): the dialer's call.originate becomes an Originate of the customer's line, and the
 * switch's answers (OriginateResponse, the dialplan's UserEvent CcAmd, the queue's events) reach
 * the service under the dial's callId.
 */

afterAll(() => closeReaders());

let seq = 0;
const customerNumber = () => String(919700000000 + Math.floor(Math.random() * 90_000) * 100 + (seq++ % 100));

/** A running campaign of one number on the switch's group `sales`, dialled once: its Originate. */
async function dialOne(h: Harness, sw: Switch, settings: Row = {}) {
  const customer = customerNumber();
  const clId = await createList(h, sw.t, [customer]);
  const res = await op(h, sw.t, 'create', {
    name: 'Asterisk campaign',
    clIds: [clId],
    groupId: sw.g,
    did: sw.did,
    mode: 'predictive',
    callingHours: ALL_DAY,
    ...settings,
  });
  expect(res.status, JSON.stringify(res)).toBe('success');
  const campaignId = (res.data as { campaignId: number }).campaignId;
  expect((await op(h, sw.t, 'start', { campaignId })).status).toBe('success');
  await tick(h);
  await waitFor(() => sw.fake.actions.some((a) => a.Action === 'Originate' && String(a.Channel).startsWith(`Local/${customer}@`)), 'the Originate');
  const action = sw.fake.actions.find((a) => a.Action === 'Originate' && String(a.Channel).startsWith(`Local/${customer}@`))!;
  const callId = String(action.ActionID).replace('cc-originate-', '');
  return { customer, campaignId, callId, action };
}

function response(callId: string, ts: number, ok: boolean, reason: number, customer: string, uid = '') {
  const f: Fields = {
    ActionID: `cc-originate-${callId}`,
    Response: ok ? 'Success' : 'Failure',
    Channel: `Local/${customer}@from-internal-00000001;1`,
    Context: 'cc-campaign',
    Exten: 's',
    Reason: reason,
    Uniqueid: ok ? uid : '<null>',
    CallerIDNum: '<unknown>',
    CallerIDName: '<unknown>',
  };
  return amiEvent('OriginateResponse', 'call,all', ts, f);
}

function amd(callId: string, ts: number, uid: string, status: 'HUMAN' | 'MACHINE') {
  return amiEvent('UserEvent', 'user,all', ts, {
    Channel: 'Local/x@from-internal-00000001;1',
    Uniqueid: uid,
    UserEvent: 'CcAmd',
    CallId: callId,
    Status: status,
  });
}

async function dial(h: Harness, callId: string): Promise<Row> {
  return (await h.db.get<Row>('SELECT outcome, answered_by, connected_at, agent_id, agent_answered_at, ended_at FROM campaign_calls WHERE call_id = $1', [
    callId,
  ]))!;
}

async function call(h: Harness, accountId: number, callId: string): Promise<Row | undefined> {
  return h.db.get<Row>('SELECT outcome, direction, answered_by, group_id FROM calls WHERE account_id = $1 AND call_id = $2', [accountId, callId]);
}

/** report/campaign's figures over the test's dials, summed over its campaigns (PRODUCT.md §11, §13). */
async function figures(h: Harness, ssid: string, from: number): Promise<Record<string, number>> {
  const res = await h.post<{ data: Row[] }>('/api/v2/report/campaign', {
    ssid,
    from: Math.floor(from) - 60,
    to: Math.floor(h.clock.now() / 1000) + 60,
    interval: 'total',
  });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  const sum: Record<string, number> = {};
  for (const r of res.body.data)
    for (const k of ['dialled', 'humanAnswered', 'machine', 'noAnswer', 'busy', 'failed', 'connected', 'abandoned']) sum[k] = (sum[k] ?? 0) + Number(r[k]);
  return sum;
}

forEachDatabase('connect asterisk: campaign dials (customer first, AMD, the queue)', (use) => {
  it('the Originate of a campaign dial: every field; a person answers (AMD HUMAN), queues, an agent takes it; a replay after a reconnect counts once', async () => {
    const h = use();
    const sw = await startSwitch(h);
    try {
      const { customer, campaignId, callId, action } = await dialOne(h, sw, { amd: true, ringSecs: 30, machineAction: 'hangup' });
      const ext = /CC_AGENT=(\d+)/.exec(String(action.Variable))![1]!;
      const agentId = ext === '5001' ? sw.ids.a1 : sw.ids.a2;
      expect(callId).toMatch(/^obd-/);
      expect(action).toEqual({
        Action: 'Originate',
        ActionID: `cc-originate-${callId}`,
        Channel: `Local/${customer}@from-internal`,
        Context: 'cc-campaign',
        Exten: 's',
        Priority: '1',
        Timeout: '30000',
        CallerID: sw.did,
        Async: 'true',
        // Without answer history the predictive campaign paces as progressive (PRODUCT.md §13): the dial names its reserved agent.
        Variable: `CC_CALL_ID=${callId},CC_CAMPAIGN_ID=${campaignId},CC_GROUP_ID=${sw.g},CC_QUEUE=sales,CC_AMD=1,CC_MACHINE_ACTION=hangup,CC_AGENT=${ext},CC_AGENT_ID=${agentId}`,
      });
      const T = nowSec(h);
      const uid = '1732470000.11';
      const leg = { Channel: `Local/${customer}@from-internal-00000001;1`, Uniqueid: uid, Linkedid: uid };
      const agentLeg = { DestChannel: `PJSIP/${ext}-00000011`, DestUniqueid: '1732470000.12', DestLinkedid: uid };
      // The dialplan Dials the reserved agent (CC_AGENT): DialBegin rings it, DialEnd ANSWER connects it.
      const before = [
        response(callId, T + 5, true, 4, customer, uid),
        amd(callId, T + 7, uid, 'HUMAN'),
        amiEvent('DialBegin', 'call,all', T + 7, { ...leg, ...agentLeg, DialString: ext }),
        amiEvent('DialEnd', 'call,all', T + 10, { ...leg, ...agentLeg, DialStatus: 'ANSWER' }),
      ];
      await sw.fake.send(before.join(''));
      await sw.sync();
      expect(await queueCalls(h, sw.t.ssid)).toMatchObject([{ callId, state: 'connected', agentId, direction: 'outbound', caller: customer }]);
      expect(await dial(h, callId)).toMatchObject({ answered_by: 'human', agent_id: agentId });
      expect(Number((await dial(h, callId)).connected_at)).toBe(Math.floor(T + 7));
      // The switch restarts mid-call; after the reconnect it writes the same events again: nothing new.
      sw.fake.status = {
        members: [
          { queue: 'sales', location: 'PJSIP/5001', inCall: true },
          { queue: 'sales', location: 'PJSIP/5002' },
        ],
        entries: [],
        channels: [{ channel: leg.Channel, uniqueid: uid, linkedid: uid }],
      };
      const forwarded = sw.rt.health.eventsForwarded;
      sw.fake.drop();
      await waitFor(() => sw.rt.health.switchState === 'disconnected', 'the disconnect');
      await waitFor(() => sw.connector.reconciled >= 2, 'the reconciliation after the reconnect');
      await sw.fake.send(before.join(''));
      await sw.sync();
      expect(sw.rt.health.eventsForwarded).toBe(forwarded);
      expect(await queueCalls(h, sw.t.ssid)).toMatchObject([{ callId, state: 'connected', agentId }]);
      await sw.fake.send(amiEvent('Hangup', 'call,all', T + 70, { ...leg, Cause: 16, 'Cause-txt': 'Normal Clearing' }));
      await sw.sync();
      expect(await queueCalls(h, sw.t.ssid)).toEqual([]);
      expect(await call(h, sw.t.accountId, callId)).toMatchObject({ outcome: 'completed', direction: 'outbound', group_id: sw.g });
      expect(Number((await call(h, sw.t.accountId, callId))!.answered_by)).toBe(agentId);
      const status = await op(h, sw.t, 'status', { campaignId });
      expect(status.status).toBe('success');
      expect(sw.rt.health.rejected).toBe(0);
    } finally {
      await sw.stop();
    }
  });

  it('without AMD the answer is a person; a machine (AMD MACHINE, machineAction hangup) ends as machine', async () => {
    const h = use();
    const sw = await startSwitch(h);
    try {
      const plain = await dialOne(h, sw, { amd: false });
      expect(plain.action.Variable).toContain('CC_AMD=0');
      const T = nowSec(h);
      await sw.fake.send(response(plain.callId, T + 3, true, 4, plain.customer, '1732470000.21'));
      await sw.sync();
      expect((await dial(h, plain.callId)).answered_by).toBe('human');
      const x = caller('1732470000.21', plain.customer, sw.did);
      // This dialplan sends it to the queue (the group's queue events, as for an inbound call, under the dial's callId).
      await sw.fake.send(x.join(T + 3) + x.called(T + 4, '5002') + x.connect(T + 6, '5002', 3, 2000));
      await sw.sync();
      expect(await queueCalls(h, sw.t.ssid)).toMatchObject([
        { callId: plain.callId, state: 'connected', agentId: sw.ids.a2, groupId: sw.g, direction: 'outbound' },
      ]);
      expect(await dial(h, plain.callId)).toMatchObject({ agent_id: sw.ids.a2 });
      await sw.fake.send(x.complete(T + 16, '5002', 3, 10));
      await sw.sync();
      expect(await call(h, sw.t.accountId, plain.callId)).toMatchObject({ outcome: 'completed', direction: 'outbound' });

      const m = await dialOne(h, sw, { amd: true });
      const uid = '1732470000.22';
      await sw.fake.send(
        response(m.callId, T + 20, true, 4, m.customer, uid) +
          amd(m.callId, T + 23, uid, 'MACHINE') +
          amiEvent('Hangup', 'call,all', T + 24, { Channel: `Local/${m.customer}@from-internal-00000002;1`, Uniqueid: uid, Linkedid: uid, Cause: 16 }),
      );
      await sw.sync();
      expect(await dial(h, m.callId)).toMatchObject({ answered_by: 'machine', outcome: 'machine' });
      expect(await queueCalls(h, sw.t.ssid)).toEqual([]);
      // The person taken by an agent and the machine, in the campaign figures.
      expect(await figures(h, sw.t.ssid, T)).toMatchObject({ dialled: 2, humanAnswered: 1, machine: 1, connected: 1, abandoned: 0 });
    } finally {
      await sw.stop();
    }
  });

  it('busy (Reason 5), no answer (Reason 3), failed (Reason 0): call.ended with the §13 reasons', async () => {
    const h = use();
    const sw = await startSwitch(h);
    try {
      const T = nowSec(h);
      for (const [reason, outcome] of [
        [5, 'busy'],
        [3, 'no_answer'],
        [0, 'failed'],
      ] as const) {
        const d = await dialOne(h, sw);
        await sw.fake.send(response(d.callId, T + 30, false, reason, d.customer));
        await sw.sync();
        expect(await dial(h, d.callId)).toMatchObject({ outcome, answered_by: null });
      }
      expect(await figures(h, sw.t.ssid, T)).toMatchObject({ dialled: 3, humanAnswered: 0, machine: 0, noAnswer: 1, busy: 1, failed: 1, connected: 0 });
      expect(await queueCalls(h, sw.t.ssid)).toEqual([]);
      expect(sw.rt.health.rejected).toBe(0);
    } finally {
      await sw.stop();
    }
  });
});
