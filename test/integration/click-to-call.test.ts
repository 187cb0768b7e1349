import { afterAll, expect, it } from 'vitest';
import { createAgent, createDid, createRole } from '../helpers/admin.js';
import { amiEvent } from '../helpers/ami-server.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { baseUrl, closeReaders, openSse } from '../helpers/sse.js';
import { queueCalls, startSwitch, waitFor, type Row } from './asterisk.fixtures.js';
import { nowSec } from './events.fixtures.js';

afterAll(closeReaders);

async function v3(h: Harness, query: Record<string, string>) {
  const res = await h.app.inject({ method: 'POST', url: `/api/v3/clickToCall/para?${new URLSearchParams(query).toString()}` });
  return res.json<{ status: string; code: number; message?: string; data?: { callId: string } }>();
}

forEachDatabase('click-to-call: call/originate, the v3 alias, the stream command, AMI Originate', (use) => {
  it('call/originate answers a callId, records the call and pushes call.originate on the stream', async () => {
    const h = use();
    const t = await createTenant(h);
    const did = await createDid(h, t);
    const agent = await createAgent(h, t, { dest_type: 'SIP', dest_value: 'sip:5001@pbx', phone: '919811100099' });
    const sw = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' });
    const stream = await openSse(`${await baseUrl(h)}/api/v2/stream?userId=${sw.body.userId}&token=${sw.body.token}`);
    const board = await openSse(`${await baseUrl(h)}/api/v2/stream?ssid=${t.ssid}`);
    await board.next((m) => m.event === 'ready');
    const res = await h.post<{ data: { callId: string } }>('/api/v2/call/originate', {
      ssid: t.ssid,
      agentId: agent.agentId,
      customer: '+91 98111 00042',
      did,
      campaignId: 'spring',
    });
    expect(res.body.status, JSON.stringify(res.body)).toBe('success');
    const { callId } = res.body.data;
    expect(callId).toMatch(/^ctc-[0-9a-f-]{36}$/);
    const msg = await stream.next((m) => m.event === 'call.originate');
    expect(msg.data).toEqual({
      callId,
      agentId: agent.agentId,
      agentNumber: '919811100099',
      customer: '919811100042',
      did,
      campaignId: 'spring',
      ts: nowSec(h),
      seq: Number(msg.id),
    });
    // A wallboard (client session) is not sent the switch's command.
    const ended = await h.post<{ data: { callId: string } }>('/api/v2/call/originate', { ssid: t.ssid, agentId: agent.agentId, customer: '919811100043' });
    await stream.next((m) => m.event === 'call.originate' && (m.data as Row).callId === ended.body.data.callId);
    expect(board.raw()).not.toContain('call.originate');
    const row = await h.db.get<Row>('SELECT agent_id, customer, did, campaign_id, call_first FROM originated_calls WHERE account_id = $1 AND call_id = $2', [
      t.accountId,
      callId,
    ]);
    expect({ ...row, agent_id: Number(row!.agent_id) }).toEqual({
      agent_id: agent.agentId,
      customer: '919811100042',
      did,
      campaign_id: 'spring',
      call_first: 'agent',
    });
  });

  it('refuses a bad customer (1005), a foreign DID (1516), an unknown agent (1509), a caller without call.originate (1015), a switch token (1015)', async () => {
    const h = use();
    const t = await createTenant(h);
    const other = await createTenant(h);
    const foreign = await createDid(h, other);
    const agent = await createAgent(h, t);
    const base = { ssid: t.ssid, agentId: agent.agentId, customer: '919811100042' };
    expect((await h.post('/api/v2/call/originate', { ...base, customer: '12' })).body.code).toBe(1005);
    expect((await h.post('/api/v2/call/originate', { ...base, did: foreign })).body.code).toBe(1516);
    expect((await h.post('/api/v2/call/originate', { ...base, agentId: 999999 })).body.code).toBe(1509);
    const role = await createRole(h, t, { permissions: ['agent.view'] });
    const weak = await createAgent(h, t, { role });
    const s = await login(h, weak.email, weak.password);
    expect((await h.post('/api/v2/call/originate', { ...base, ssid: s.ssid })).body).toMatchObject({
      code: 1015,
      message: 'Permission denied: missing permission call.originate',
    });
    const sw = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' });
    const { ssid: _ssid, ...noSsid } = base;
    void _ssid;
    expect((await h.post('/api/v2/call/originate', { ...noSsid, userId: sw.body.userId, token: sw.body.token })).body.code).toBe(1015);
    const count = await h.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM originated_calls WHERE account_id = $1', [t.accountId]);
    expect(Number(count!.n)).toBe(0);
  });

  it('POST /api/v3/clickToCall/para takes query parameters and no body, and answers the same', async () => {
    const h = use();
    const t = await createTenant(h);
    const did = await createDid(h, t);
    const agent = await createAgent(h, t, { phone: '919811100077', dest_type: 'MOBILE', dest_value: '919811100077' });
    const tok = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid });
    const q = {
      user_id: tok.body.userId,
      token: tok.body.token,
      agent_number: '919811100077',
      customer: '9811100042',
      customerCLI: did,
      callFirst: 'agent',
      agentCLI: '5550100',
    };
    const res = await v3(h, q);
    expect(res.status, JSON.stringify(res)).toBe('success');
    expect(res.code).toBe(200);
    const row = await h.db.get<Row>('SELECT agent_id, customer, did, agent_cli FROM originated_calls WHERE account_id = $1 AND call_id = $2', [
      t.accountId,
      res.data!.callId,
    ]);
    expect({ ...row, agent_id: Number(row!.agent_id) }).toEqual({ agent_id: agent.agentId, customer: '9811100042', did, agent_cli: '5550100' });
    expect((await v3(h, { ...q, agent_number: '919800000000' })).code).toBe(1509);
    expect((await v3(h, { ...q, token: 'wrong' })).code).toBe(1014);
    expect((await v3(h, { ...q, callFirst: 'sometimes' })).code).toBe(1000);
    const { customer: _c, ...noCustomer } = q;
    void _c;
    expect((await v3(h, noCustomer)).code).toBe(1000);
  });

  it('the connector places it as AMI Originate (agent first, then the customer) and reports the call under its callId', async () => {
    const h = use();
    const sw = await startSwitch(h);
    try {
      const T = nowSec(h);
      const res = await h.post<{ data: { callId: string } }>('/api/v2/call/originate', {
        ssid: sw.t.ssid,
        agentId: sw.ids.a1,
        customer: '919811100042',
        did: sw.did,
      });
      const { callId } = res.body.data;
      await waitFor(() => sw.fake.actions.some((a) => a.Action === 'Originate'), 'the Originate');
      expect(sw.fake.actions.find((a) => a.Action === 'Originate')).toEqual({
        Action: 'Originate',
        ActionID: `cc-originate-${callId}`,
        Channel: 'PJSIP/5001',
        Context: 'from-internal',
        Exten: '919811100042',
        Priority: '1',
        CallerID: sw.did,
        Async: 'true',
        Variable: `CC_CALL_ID=${callId}`,
      });
      await sw.sync();
      expect(await queueCalls(h, sw.t.ssid)).toMatchObject([
        { callId, state: 'ringing', ringingAgentId: sw.ids.a1, direction: 'outbound', caller: '919811100042' },
      ]);
      // The agent answers at T+6; the call ends when the agent's channel hangs up at T+66.
      const agentChannel = { Channel: 'PJSIP/5001-00000042', Uniqueid: '1732461000.42', Linkedid: '1732461000.42' };
      await sw.fake.send(
        amiEvent('OriginateResponse', 'call,all', T + 6, {
          ActionID: `cc-originate-${callId}`,
          Response: 'Success',
          Channel: agentChannel.Channel,
          Context: 'from-internal',
          Exten: '919811100042',
          Application: '',
          Data: '',
          Reason: 4,
          Uniqueid: agentChannel.Uniqueid,
          CallerIDNum: sw.did,
          CallerIDName: '<unknown>',
        }),
      );
      await sw.sync();
      expect(await queueCalls(h, sw.t.ssid)).toMatchObject([{ callId, state: 'connected', agentId: sw.ids.a1 }]);
      await sw.fake.send(
        amiEvent('Hangup', 'call,all', T + 66, { ...agentChannel, ChanVariable: `CC_CALL_ID=${callId}`, Cause: 16, 'Cause-txt': 'Normal Clearing' }),
      );
      await sw.sync();
      const row = await h.db.get<Row>('SELECT outcome, direction, answered_by, talk_secs FROM calls WHERE account_id = $1 AND call_id = $2', [
        sw.t.accountId,
        callId,
      ]);
      expect([row!.outcome, row!.direction, Number(row!.answered_by), Math.round(Number(row!.talk_secs))]).toEqual(['completed', 'outbound', sw.ids.a1, 60]);
      // Its call report says click-to-call, and CallReport/list's cType filter finds it as CTC only.
      const detail = await h.post<{ data: { cType: string; callStatus: number; talkDuration: number } }>('/api/v2/CallReport/detail', {
        ssid: sw.t.ssid,
        clId: callId,
      });
      expect([detail.body.data.cType, detail.body.data.callStatus, detail.body.data.talkDuration]).toEqual(['CTC', 3, 60]);
      const listed = async (cType: string) =>
        (await h.post<{ data: Array<{ callId: string }> }>('/api/v2/CallReport/list', { ssid: sw.t.ssid, cType: [cType] })).body.data.map((r) => r.callId);
      expect(await listed('CTC')).toEqual([callId]);
      expect(await listed('OBD')).toEqual([]);
    } finally {
      await sw.stop();
    }
  });
});
