import { afterAll, afterEach, expect, it } from 'vitest';
import { baseHeaders, eventFrame } from '../helpers/fake-esl.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { closeReaders } from '../helpers/sse.js';
import { ALL_DAY, createList, op, tick } from './campaigns.fixtures.js';
import { cc, count, queued, scene, stopAll, U1, U2, U3, us, waitFor, type Scene } from './connect-freeswitch.fixtures.js';

/*
 * Campaign dials placed by the FreeSWITCH connector (PRODUCT.md §13; docs/freeswitch.md "Outbound
 * campaigns"): the dialer's call.originate becomes `originate … loopback/<customer>/<context>
 * campaign XML cc_campaign`; its answer, the dialplan's cc::amd event and mod_callcenter's events
 * reach the service under the dial's callId.
 */

afterEach(stopAll);
afterAll(() => closeReaders());

type Row = Record<string, unknown>;
let seq = 0;
const customerNumber = () => String(919600000000 + Math.floor(Math.random() * 90_000) * 100 + (seq++ % 100));

/** A running campaign of one number on the scene's group, dialled once with the switch answering `answer`. */
async function dialOne(s: Scene, answer: string, settings: Row = {}) {
  const customer = customerNumber();
  const before = s.fake.commands.filter((c) => c.startsWith('api originate {cc_call_id=obd-')).length;
  s.fake.answerFor = (cmd) => (cmd.startsWith('originate {cc_call_id=obd-') ? answer : undefined);
  const clId = await createList(s.h, s.session, [customer]);
  const res = await op(s.h, s.session, 'create', {
    name: 'FS campaign',
    clIds: [clId],
    groupId: s.g,
    did: s.did,
    mode: 'predictive',
    callingHours: ALL_DAY,
    ...settings,
  });
  expect(res.status, JSON.stringify(res)).toBe('success');
  const campaignId = (res.data as { campaignId: number }).campaignId;
  expect((await op(s.h, s.session, 'start', { campaignId })).status).toBe('success');
  await tick(s.h);
  await s.fake.received('api originate {cc_call_id=obd-', before + 1, 20_000);
  const command = s.fake.commands.filter((c) => c.startsWith('api originate {cc_call_id=obd-'))[before]!.slice(4);
  const callId = /cc_call_id=(obd-[^,]+)/.exec(command)![1]!;
  return { customer, campaignId, callId, command };
}

async function dial(h: Harness, callId: string): Promise<Row | undefined> {
  return h.db.get<Row>('SELECT outcome, answered_by, agent_id, ended_at FROM campaign_calls WHERE call_id = $1', [callId]);
}

function amdEvent(s: Scene, sec: number, uuid: string, callId: string, result: string): string {
  const headers = baseHeaders('CUSTOM', us(s, sec));
  headers.push(['Event-Subclass', 'cc::amd'], ['Unique-ID', uuid], ['cc_call_id', callId], ['amd_result', result]);
  return eventFrame(headers);
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

function agentEvent(s: Scene, sec: number, uuid: string, callId: string, state: string): string {
  const headers = baseHeaders('CUSTOM', us(s, sec));
  headers.push(['Event-Subclass', 'cc::agent'], ['Unique-ID', uuid], ['cc_call_id', callId], ['cc_state', state]);
  return eventFrame(headers);
}

forEachDatabase('connect freeswitch: campaign dials (customer first, AMD, mod_callcenter)', (use) => {
  it('the originate of a campaign dial; a person answers, queues, an agent takes it; a replay after a reconnect counts once', async () => {
    const s = await scene(use());
    s.fake.api.set(`uuid_exists ${U1}`, 'true\n');
    const d = await dialOne(s, `+OK ${U1}\n`, { ringSecs: 30, amd: false });
    // Without answer history the predictive campaign paces as progressive: the dial names its reserved agent.
    const ext = /cc_agent=(\d+)/.exec(d.command)![1]!;
    const agentId = ext === '5001' ? s.a1 : s.a2;
    expect(d.command).toBe(
      `originate {cc_call_id=${d.callId},cc_campaign_id=${d.campaignId},cc_group_id=${s.g},cc_queue=support,cc_amd=0,cc_machine_action=hangup,` +
        `cc_agent=${ext},cc_agent_id=${agentId},origination_caller_id_number=${s.did},originate_timeout=30,ignore_early_media=true}` +
        `loopback/${d.customer}/default campaign XML cc_campaign`,
    );
    await waitFor(() => s.conn.ctc.owns(d.callId), 'the dial followed');
    await s.conn.settle();
    expect(await dial(s.h, d.callId)).toMatchObject({ answered_by: 'human' });
    const events = [
      queued(s, 3, U1),
      cc(s, 4, 'agent-offering', U1, { 'CC-Agent': '5001@default' }),
      cc(s, 6, 'bridge-agent-start', U1, { 'CC-Agent': '5001@default' }),
    ];
    await s.play(...events);
    expect((await count(s)).data.calls).toEqual([
      expect.objectContaining({ callId: d.callId, state: 'connected', agentId: s.a1, caller: d.customer, direction: 'outbound', groupId: s.g }),
    ]);
    expect(await dial(s.h, d.callId)).toMatchObject({ answered_by: 'human', agent_id: s.a1 });
    // The socket drops; after the reconnect FreeSWITCH sends the same events again: duplicates, nothing changes.
    const duplicates = s.conn.runtime.health.duplicates;
    const reconciled = s.conn.reconciled;
    s.fake.disconnect();
    await s.fake.subscribed(2);
    await waitFor(() => s.conn.reconciled > reconciled, 'the reconciliation after the reconnect');
    await s.play(...events);
    // The queue start is known to the connector (not sent again); the offer and the bridge are sent and counted as duplicates.
    expect(s.conn.runtime.health.duplicates).toBe(duplicates + 2);
    expect((await count(s)).data.calls).toEqual([expect.objectContaining({ callId: d.callId, state: 'connected', agentId: s.a1 })]);
    await s.play(cc(s, 66, 'member-queue-end', U1, { 'CC-Cause': 'Terminated', 'CC-Cancel-Reason': 'NONE', 'CC-Agent': '5001@default' }));
    expect((await count(s)).data.calls).toEqual([]);
    const call = await s.h.db.get<Row>('SELECT outcome, direction FROM calls WHERE call_id = $1', [d.callId]);
    expect(call).toMatchObject({ outcome: 'completed', direction: 'outbound' });
    expect(await figures(s.h, s.ssid, s.t0)).toMatchObject({ dialled: 1, humanAnswered: 1, connected: 1, machine: 0, abandoned: 0 });
    expect(s.conn.runtime.health.rejected).toBe(0);
  });

  it('a machine (cc::amd MACHINE) hangs up: machine; busy (USER_BUSY) and no answer (NO_ANSWER): their reasons', async () => {
    const s = await scene(use());
    s.fake.api.set(`uuid_exists ${U2}`, 'true\n');
    const m = await dialOne(s, `+OK ${U2}\n`, { amd: true });
    expect(m.command).toContain('cc_amd=1');
    await waitFor(() => s.conn.ctc.owns(m.callId), 'the dial followed');
    await s.play(amdEvent(s, 5, U2, m.callId, 'MACHINE'));
    expect(await dial(s.h, m.callId)).toMatchObject({ answered_by: 'machine' });
    s.fake.api.set(`uuid_exists ${U2}`, 'false\n');
    await waitFor(() => !s.conn.ctc.owns(m.callId), 'the machine hung up');
    await s.conn.settle();
    expect(await dial(s.h, m.callId)).toMatchObject({ outcome: 'machine' });

    for (const [answer, outcome] of [
      ['-ERR USER_BUSY\n', 'busy'],
      ['-ERR NO_ANSWER\n', 'no_answer'],
      ['-ERR NORMAL_TEMPORARY_FAILURE\n', 'failed'],
    ] as const) {
      const d = await dialOne(s, answer);
      await waitFor(() => s.lines.some((l) => l.includes(`campaign dial ${d.callId}`)), 'the failed dial');
      await s.conn.settle();
      expect(await dial(s.h, d.callId)).toMatchObject({ outcome, answered_by: null });
    }
    expect((await count(s)).data.calls).toEqual([]);
    expect(await figures(s.h, s.ssid, s.t0)).toMatchObject({ dialled: 4, humanAnswered: 0, machine: 1, busy: 1, noAnswer: 1, failed: 1, connected: 0 });
    expect(s.conn.runtime.health.rejected).toBe(0);
  });

  it('progressive / preview: the dialplan bridges the customer to the reserved agent (cc::agent ringing, answered); the channel gone ends it completed', async () => {
    const s = await scene(use());
    s.fake.api.set(`uuid_exists ${U3}`, 'true\n');
    const d = await dialOne(s, `+OK ${U3}\n`);
    const ext = /cc_agent=(\d+)/.exec(d.command)![1]!;
    const agentId = ext === '5001' ? s.a1 : s.a2;
    await waitFor(() => s.conn.ctc.owns(d.callId), 'the dial followed');
    await s.play(agentEvent(s, 3, U3, d.callId, 'ringing'), agentEvent(s, 5, U3, d.callId, 'answered'));
    expect((await count(s)).data.calls).toEqual([
      expect.objectContaining({ callId: d.callId, state: 'connected', agentId, direction: 'outbound', groupId: s.g }),
    ]);
    s.fake.api.set(`uuid_exists ${U3}`, 'false\n');
    await waitFor(() => !s.conn.ctc.owns(d.callId), 'the end');
    await s.conn.settle();
    expect((await count(s)).data.calls).toEqual([]);
    expect(await dial(s.h, d.callId)).toMatchObject({ answered_by: 'human', agent_id: agentId });
    const call = await s.h.db.get<Row>('SELECT outcome, direction FROM calls WHERE call_id = $1', [d.callId]);
    expect(call).toMatchObject({ outcome: 'completed', direction: 'outbound' });
    expect(s.conn.runtime.health.rejected).toBe(0);
  });
});
