import { spawn } from 'node:child_process';
import { afterAll, afterEach, expect, it } from 'vitest';
import { ccEvent, channelEvent, startFakeEsl } from '../helpers/fake-esl.js';
import { createAgent } from '../helpers/admin.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';
import { baseUrl, closeReaders } from '../helpers/sse.js';
import {
  U1,
  U2,
  U3,
  LEG,
  AGENT_HEADER,
  agentRow,
  agentState,
  cc,
  count,
  hits,
  live,
  queued,
  scene,
  status,
  stopAll,
  table,
  us,
  waitFor,
} from './connect-freeswitch.fixtures.js';

/*
 * `callcenter connect freeswitch`, the calls: a scripted FreeSWITCH event socket
 * (the real framing byte for byte) → the connector → the service over real
 * HTTP; then what Agent/live, queue/count and analysis/hits answer, with
 * figures worked out by hand. Reconciliation: connect-freeswitch-reconcile.test.ts.
 */

afterAll(closeReaders);
afterEach(stopAll);

forEachDatabase('callcenter connect freeswitch: mod_callcenter through the event socket', (use) => {
  it('an answered call after a failed offer, with hold: live state, queue/count and analysis/hits', async () => {
    const s = await scene(use());
    expect(s.fake.commands.slice(0, 2)).toEqual(['auth ClueCon', 'event plain CHANNEL_HOLD CHANNEL_UNHOLD CUSTOM callcenter::info cc::amd cc::agent']);
    // The first reconciliation logged in the two agents the switch reports Available.
    expect((await live(s)).lA).toBe(2);

    await s.play(
      queued(s, 0, U1),
      cc(s, 2, 'agent-offering', U1, { 'CC-Agent': '5001@default', 'CC-Agent-System': 'single_box' }),
      cc(s, 12, 'bridge-agent-fail', U1, { 'CC-Agent': '5001@default', 'CC-Hangup-Cause': 'NO_ANSWER' }),
      cc(s, 14, 'agent-offering', U1, { 'CC-Agent': '5002@default' }),
      cc(s, 18, 'bridge-agent-start', U1, { 'CC-Agent': '5002@default', 'CC-Agent-UUID': LEG }),
      // The agent's phone puts the customer on hold: the hold event is the agent leg's.
      channelEvent(us(s, 30), 'CHANNEL_HOLD', LEG, { cc_member_session_uuid: U1 }),
    );
    s.at(31);
    const during = await count(s);
    expect(during.data.calls).toEqual([
      expect.objectContaining({ callId: U1, state: 'connected', agentId: s.a2, onHold: true, did: s.did, caller: '4930123456' }),
    ]);
    expect((await agentState(s, s.a2)).liC).toMatchObject({ callId: U1, onHold: true });

    await s.play(
      channelEvent(us(s, 45), 'CHANNEL_UNHOLD', LEG, { cc_member_session_uuid: U1 }),
      cc(s, 78, 'member-queue-end', U1, { 'CC-Cause': 'Terminated' }),
    );
    s.at(80);
    const after = await count(s);
    expect(after.data.calls).toEqual([]);
    // Queued within the 300 s window: one call, answered, not dropped, nothing live.
    expect(after.data.grp).toEqual([{ key: s.g, add: 1, drop: 0, con: 1, pen: 0, process: 0, ass: 0 }]);
    // 5001: one hit, rang 2 → 12 = 10 s, missed, the call answered elsewhere (PM).
    // 5002: one hit, rang 14 → 18 = 4 s, answered; held 30 → 45 = 15 s.
    expect(await hits(s, 'agentId', 'TC,AC,MC,UC,CA,PM,CM,avgRingTime,avgHoldTime')).toEqual({
      [s.a1]: { TC: 1, AC: 0, MC: 1, UC: 1, CA: 0, PM: 1, CM: 0, avgRingTime: 10, avgHoldTime: null },
      [s.a2]: { TC: 1, AC: 1, MC: 0, UC: 1, CA: 1, PM: 0, CM: 0, avgRingTime: 4, avgHoldTime: 15 },
    });
    expect(s.conn.runtime.health.rejected).toBe(0);
  });

  it('abandoned calls (Cancel: BREAK_OUT while ringing, TIMEOUT unoffered); an unknown queue is logged once', async () => {
    const s = await scene(use());
    await s.play(
      queued(s, 0, U1),
      queued(s, 1, U2),
      cc(s, 3, 'agent-offering', U1, { 'CC-Agent': '5001@default' }),
      cc(s, 9, 'member-queue-end', U1, { 'CC-Cause': 'Cancel', 'CC-Cancel-Reason': 'BREAK_OUT' }),
      cc(s, 61, 'member-queue-end', U2, { 'CC-Cause': 'Cancel', 'CC-Cancel-Reason': 'TIMEOUT' }),
      ccEvent(us(s, 62), 'member-queue-start', { 'CC-Queue': 'sales@default', 'CC-Member-Session-UUID': U3 }),
      ccEvent(us(s, 63), 'member-queue-start', { 'CC-Queue': 'sales@default', 'CC-Member-Session-UUID': U3 }),
    );
    s.at(70);
    const c = await count(s);
    expect(c.data.calls).toEqual([]);
    expect(c.data.grp).toEqual([{ key: s.g, add: 2, drop: 2, con: 0, pen: 0, process: 0, ass: 0 }]);
    // Only U1 was offered: one hit, rang 3 → 9 = 6 s, never answered (CM). U2 had no offer: no key counts it.
    expect(await hits(s, 'groupId', 'TC,AC,MC,UC,CA,CM,avgRingTime')).toEqual({ [s.g]: { TC: 1, AC: 0, MC: 1, UC: 1, CA: 0, CM: 1, avgRingTime: 6 } });
    // 5001 is free again after the caller broke out.
    expect((await agentState(s, s.a1)).ex!.state).toBe('available');
    expect(s.lines.filter((l) => l.includes('unknown queue "sales"'))).toHaveLength(1);
    expect(s.lines.some((l) => l.includes(`call ${U1} left support@default: Cancel BREAK_OUT`))).toBe(true);
    expect(s.lines.some((l) => l.includes(`call ${U2} left support@default: Cancel TIMEOUT`))).toBe(true);
  });

  it('a break (On Break without a reason is `break`) and back; reconciliation runs every --reconcile-s', async () => {
    const s = await scene(use(), { reconcileSecs: 0.1 });
    // The switch's agent list (only read) says On Break from now on, as FreeSWITCH's would: set before the event,
    // so a periodic pass that runs between the event and the checks (a loaded machine) finds the two in step.
    s.fake.api.set('callcenter_config agent list', table(AGENT_HEADER, [agentRow('5001', 'On Break', 'Idle'), agentRow('5002', 'Available', 'Waiting')]));
    await s.play(status(s, 0, '5001', 'On Break'));
    s.at(5);
    let l = await live(s);
    expect({ lA: l.lA, oBA: l.oBA }).toEqual({ lA: 2, oBA: 1 });
    expect((await agentState(s, s.a1)).br).toMatchObject({ reason: 'break' });
    const passes = s.conn.reconciled;
    await waitFor(() => s.conn.reconciled >= passes + 2, 'two periodic passes');
    // Back to Available on the switch too, before the event, for the same reason.
    s.fake.api.set('callcenter_config agent list', table(AGENT_HEADER, [agentRow('5001', 'Available', 'Waiting'), agentRow('5002', 'Available', 'Waiting')]));
    await s.play(status(s, 60, '5001', 'Available'));
    s.at(61);
    l = await live(s);
    expect({ lA: l.lA, oBA: l.oBA }).toEqual({ lA: 2, oBA: 0 });
    expect((await agentState(s, s.a1)).br).toEqual({});
    expect(s.conn.runtime.health.rejected).toBe(0);
  });

  it('a takeover: the stream command becomes uuid_transfer of the caller channel to the supervisor', async () => {
    const s = await scene(use(), {
      agents: [agentRow('5001', 'Available', 'Waiting'), agentRow('5002', 'Available', 'Waiting'), agentRow('5003', 'Available', 'Waiting')],
    });
    await s.play(
      queued(s, 0, U1),
      cc(s, 1, 'agent-offering', U1, { 'CC-Agent': '5001@default' }),
      cc(s, 4, 'bridge-agent-start', U1, { 'CC-Agent': '5001@default', 'CC-Agent-UUID': LEG }),
    );
    s.at(10);
    const taken = await s.post<{ data: { callId: string; from: number; to: number } }>('/api/v2/queue/callTakeover', { callId: U1, agentid: s.sup });
    expect(taken.data).toEqual({ callId: U1, from: s.a1, to: s.sup });
    await s.fake.received('api uuid_transfer');
    expect(s.fake.commands.filter((c) => c.startsWith('api uuid_transfer'))).toEqual([`api uuid_transfer ${U1} 5003 XML default`]);
    await waitFor(() => s.conn.runtime.health.commandsExecuted === 1, 'the command counted');
    expect((await agentState(s, s.sup)).liC).toMatchObject({ callId: U1 });
    expect((await agentState(s, s.a1)).ex!.state).toBe('wrapup');
    // The transfer took the caller out of mod_callcenter, which now reports the bridge and the member as over:
    // the call goes on with the supervisor, so those are not its end.
    s.fake.api.set(`uuid_exists ${U1}`, 'true\n');
    await s.play(
      cc(s, 11, 'bridge-agent-end', U1, { 'CC-Agent': '5001@default', 'CC-Hangup-Cause': 'NORMAL_CLEARING' }),
      cc(s, 11, 'member-queue-end', U1, { 'CC-Cause': 'Terminated' }),
    );
    expect((await count(s)).data.calls.map((c) => [c.callId, c.state, c.agentId])).toEqual([[U1, 'connected', s.sup]]);
    // Nor is it ended by a reconciliation, although no queue lists it any more.
    await s.conn.reconcile();
    await s.conn.settle();
    expect((await count(s)).data.calls.map((c) => c.callId)).toEqual([U1]);
    // It ends when its channel is gone.
    s.fake.api.set(`uuid_exists ${U1}`, 'false\n');
    await waitFor(() => !s.conn.ctc.owns(U1), 'the end of the taken-over call');
    await s.conn.settle();
    expect((await count(s)).data.calls).toEqual([]);
    expect((await agentState(s, s.sup)).liC).toEqual({});
  });

  it('click-to-call: originate rings the agent with the call id, reports the call under it, ends it when the channel is gone', async () => {
    const s = await scene(use());
    // On a loaded machine (the whole suite at once) this scenario once timed out: say where, and what the switch saw.
    try {
      const callId = 'ctc-7f3a';
      const cmd = `originate {cc_call_id=${callId},origination_caller_id_number=${s.did}}user/5001 4930555000 XML default`;
      s.fake.api.set(cmd, `+OK ${LEG}\n`);
      s.fake.api.set(`uuid_exists ${LEG}`, 'true\n');
      await s.conn.ctc.originate({ callId, agentId: s.a1, agentNumber: '', customer: '4930555000', did: s.did, campaignId: null, ts: s.t0, seq: 1 });
      expect(s.fake.commands).toContain(`api ${cmd}`);
      await s.conn.settle();
      expect((await count(s)).data.calls).toEqual([expect.objectContaining({ callId, state: 'connected', agentId: s.a1, did: s.did, caller: '4930555000' })]);
      // A takeover of a click-to-call moves the customer: the B-leg of the agent's channel.
      await s.post('/api/v2/queue/callTakeover', { callId, agentid: s.a2 });
      await s.fake.received('api uuid_transfer');
      expect(s.fake.commands.filter((c) => c.startsWith('api uuid_transfer'))).toEqual([`api uuid_transfer ${LEG} -bleg 5002 XML default`]);
      s.fake.api.set(`uuid_exists ${LEG}`, 'false\n');
      // The first check may come before or after this change (a warm process asks within the 20 ms): either
      // way the end is seen only through uuid_exists.
      await waitFor(() => s.conn.ctc.owns(callId) === false, 'the end');
      expect(s.fake.commands.at(-1)).toBe(`api uuid_exists ${LEG}`);
      await s.conn.settle();
      expect((await count(s)).data.calls).toEqual([]);
      // A failed attempt: missed and failed, the command reported as failed.
      s.fake.api.set('originate {cc_call_id=ctc-8}user/5002 4930555001 XML default', '-ERR NO_ANSWER\n');
      await expect(
        s.conn.ctc.originate({ callId: 'ctc-8', agentId: s.a2, agentNumber: '', customer: '4930555001', did: null, campaignId: null, ts: s.t0, seq: 2 }),
      ).rejects.toThrow(/originate: -ERR NO_ANSWER/);
      await s.conn.settle();
      expect(s.conn.ctc.owns('ctc-8')).toBe(false);
      expect(s.lines.filter((l) => l.startsWith('rejected'))).toEqual([]);

      // An agent who answers on a mobile phone (no extension) is rung through the dialplan: loopback/<phone>/<context>.
      const mobile = await createAgent(s.h, s.session, { group: s.g, name: 'Dev' });
      await s.post('/api/v2/events/ingest', {
        events: [{ eventId: 'login-dev', type: 'agent.login', ts: s.t0, agentId: mobile.agentId, loginType: 'Mobile' }],
      });
      await s.conn.runtime.refresh();
      const phone = s.conn.runtime.mapper.phoneOf(mobile.agentId)!.phone;
      const mobileCmd = `originate {cc_call_id=ctc-9}loopback/${phone}/default 4930555002 XML default`;
      s.fake.api.set(mobileCmd, `+OK ${U3}\n`);
      await s.conn.ctc.originate({
        callId: 'ctc-9',
        agentId: mobile.agentId,
        agentNumber: phone,
        customer: '4930555002',
        did: null,
        campaignId: null,
        ts: s.t0,
        seq: 3,
      });
      expect(s.fake.commands).toContain(`api ${mobileCmd}`);
      await s.conn.settle();
      expect((await count(s)).data.calls).toEqual([
        expect.objectContaining({ callId: 'ctc-9', state: 'connected', agentId: mobile.agentId, direction: 'outbound' }),
      ]);
      expect(s.conn.runtime.health.rejected).toBe(0);
    } catch (err) {
      const e = err as Error;
      e.message += `\nconnector log:\n${s.lines.slice(-30).join('\n')}\nlast commands: ${s.fake.commands.slice(-30).join(' | ')}`;
      throw e;
    }
  }, 90_000);

  it('the `callcenter connect freeswitch` process: usage on a missing option (exit 2); runs, reconciles, stops on SIGTERM (exit 0)', async () => {
    const h = use();
    const t = await createTenant(h);
    const token = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' });
    const fake = await startFakeEsl('ClueCon');
    fake.api.set('callcenter_config agent list', table(AGENT_HEADER, []));
    fake.api.set('callcenter_config queue list', table('name|strategy', []));
    const run = (args: string[], env: Record<string, string>) => {
      const child = spawn(process.execPath, ['bin/callcenter.js', 'connect', 'freeswitch', ...args], { env: { ...process.env, ...env } });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      const exit = new Promise<number | null>((r) => child.on('close', r));
      return { child, exit, output: () => output };
    };
    try {
      const bad = run(['--esl', `127.0.0.1:${fake.port}`], {});
      expect(await bad.exit).toBe(2);
      expect(bad.output()).toContain('usage: callcenter connect freeswitch');
      const env = {
        CALLCENTER_API_URL: await baseUrl(h),
        CALLCENTER_USER_ID: token.body.userId,
        CALLCENTER_TOKEN: token.body.token,
        CALLCENTER_ESL_PASSWORD: 'ClueCon',
      };
      const good = run(['--esl', `127.0.0.1:${fake.port}`], env);
      // A process start on a loaded machine (CI runs many suites at once) may take a while.
      await fake.received('api callcenter_config queue list', 1, 40_000);
      good.child.kill('SIGTERM');
      expect(await good.exit).toBe(0);
      expect(good.output()).toContain(`freeswitch: connected to 127.0.0.1:${fake.port}`);
      expect(good.output()).not.toContain('ClueCon');
    } finally {
      await fake.close();
    }
  }, 60_000);
});
