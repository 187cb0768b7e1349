import { expect, it } from 'vitest';
import { createAgent, createGroup } from '../helpers/admin.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';
import { advance, ev, ingest, ingestOk } from './events.fixtures.js';

forEachDatabase('events/ingest', (use) => {
  it('applies a full call and writes one history row with its hits', async () => {
    const h = use();
    const t = await createTenant(h);
    const g = await createGroup(h, t);
    const a1 = (await createAgent(h, t, { group: g })).agentId;
    const a2 = (await createAgent(h, t, { group: g })).agentId;
    await ingestOk(h, t.ssid, [ev(h, 'agent.login', { agentId: a1 }), ev(h, 'agent.login', { agentId: a2, loginType: 'SIP' })]);
    await ingestOk(h, t.ssid, [
      ev(h, 'call.queued', { callId: 'c1', groupId: g, did: '18005550100', caller: '+91 98765-43210', campaignId: 'camp', retryOf: 'c0' }),
    ]);
    advance(h, 2);
    await ingestOk(h, t.ssid, [ev(h, 'call.ringing', { callId: 'c1', agentId: a1 })]);
    advance(h, 5);
    await ingestOk(h, t.ssid, [ev(h, 'call.missed', { callId: 'c1', agentId: a1 }), ev(h, 'call.ringing', { callId: 'c1', agentId: a2 })]);
    advance(h, 3);
    await ingestOk(h, t.ssid, [ev(h, 'call.answered', { callId: 'c1', agentId: a2 })]);
    advance(h, 10);
    await ingestOk(h, t.ssid, [ev(h, 'call.hold', { callId: 'c1' })]);
    advance(h, 4);
    await ingestOk(h, t.ssid, [ev(h, 'call.unhold', { callId: 'c1' })]);
    advance(h, 6);
    await ingestOk(h, t.ssid, [ev(h, 'call.ended', { callId: 'c1' })]);
    const call = await h.db.get<Record<string, unknown>>('SELECT * FROM calls WHERE account_id = $1 AND call_id = $2', [t.accountId, 'c1']);
    expect(call).toMatchObject({
      outcome: 'completed',
      caller: '919876543210',
      did: '18005550100',
      answered_by: a2,
      campaign_id: 'camp',
      retry_of: 'c0',
      direction: 'inbound',
    });
    expect(Number(call!.group_id)).toBe(g);
    expect(Number(call!.talk_secs)).toBeCloseTo(20, 3);
    expect(Number(call!.hold_secs)).toBeCloseTo(4, 3);
    expect(Number(call!.wait_secs)).toBeCloseTo(10, 3);
    const hits = await h.db.all<Record<string, unknown>>('SELECT * FROM call_hits WHERE account_id = $1 AND call_id = $2 ORDER BY seq', [t.accountId, 'c1']);
    expect(hits.map((x) => [Number(x.agent_id), Math.round(Number(x.ring_secs)), Number(x.answered)])).toEqual([
      [a1, 5, 0],
      [a2, 3, 1],
    ]);
    const live = await h.db.get('SELECT * FROM live_calls WHERE account_id = $1', [t.accountId]);
    expect(live).toBeUndefined();
  });

  it('rejects contradictions per event without failing the batch', async () => {
    const h = use();
    const t = await createTenant(h);
    const a = (await createAgent(h, t)).agentId;
    const out = await ingest(h, t.ssid, [
      ev(h, 'call.answered', { callId: 'x1', agentId: a }),
      ev(h, 'agent.login', { agentId: 999999 }),
      ev(h, 'call.queued', { callId: 'x1' }),
      ev(h, 'call.ringing', { callId: 'x1', agentId: a }),
    ]);
    expect(out.accepted).toBe(1);
    expect(out.errors.map((e) => [e.index, e.code])).toEqual([
      [0, 1012],
      [1, 1509],
      [3, 1043],
    ]);
  });
});
