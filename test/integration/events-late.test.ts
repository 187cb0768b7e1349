import { expect, it } from 'vitest';
import { createAgent } from '../helpers/admin.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';
import { ev, ingest, ingestOk, nowSec } from './events.fixtures.js';

forEachDatabase('events/ingest: late events of finished calls', (use) => {
  it('a late call.missed shortens the offer in the history and the roll-ups (same batch and later batch)', async () => {
    const h = use();
    const t = await createTenant(h);
    const a = (await createAgent(h, t)).agentId;
    const t0 = Math.floor(nowSec(h));
    await ingestOk(h, t.ssid, [
      { eventId: 'l1', type: 'agent.login', agentId: a, ts: t0 },
      { eventId: 'l2', type: 'call.queued', callId: 'late1', ts: t0 },
      { eventId: 'l3', type: 'call.ringing', callId: 'late1', agentId: a, ts: t0 },
      { eventId: 'l4', type: 'call.ended', callId: 'late1', ts: t0 + 10 },
      { eventId: 'l5', type: 'call.queued', callId: 'late2', ts: t0 + 10 },
      { eventId: 'l6', type: 'call.ringing', callId: 'late2', agentId: a, ts: t0 + 10 },
      { eventId: 'l7', type: 'call.ended', callId: 'late2', ts: t0 + 30 },
      // Same batch: the offer of late2 really ended after 6 s.
      { eventId: 'l8', type: 'call.missed', callId: 'late2', agentId: a, ts: t0 + 16 },
    ]);
    const ring = async (callId: string) =>
      Number(
        (await h.db.get<{ ring_secs: number }>('SELECT ring_secs FROM call_hits WHERE account_id = $1 AND call_id = $2', [t.accountId, callId]))!.ring_secs,
      );
    expect(await ring('late1')).toBe(10);
    expect(await ring('late2')).toBe(6);
    // A later batch: late1's offer ended after 4 s.
    expect(await ingest(h, t.ssid, [{ eventId: 'l9', type: 'call.missed', callId: 'late1', ts: t0 + 4 }])).toEqual({ accepted: 1, duplicates: 0, errors: [] });
    expect(await ring('late1')).toBe(4);
    // Outside the offer's span, or nothing to correct: still 1012.
    const out = await ingest(h, t.ssid, [
      { eventId: 'l10', type: 'call.missed', callId: 'late1', ts: t0 + 8 },
      { eventId: 'l11', type: 'call.hold', callId: 'late1', ts: t0 + 2 },
    ]);
    expect(out.errors.map((e) => e.code)).toEqual([1012, 1012]);
    // The roll-ups follow the corrected history: mean ring (4 + 6) / 2.
    const res = await h.post('/api/v2/analysis/hits', {
      ssid: t.ssid,
      filter: [{ key: 'date', condi: 'range', val: `${t0 - 3600},${t0 + 3600}` }],
      disPlay: 'total',
      fields: ['TC', 'avgRingTime'],
    });
    expect(JSON.stringify(res.body)).toContain('"avgRingTime":5');
  });

  it('ingests a replayed batch after a late correction without changing anything', async () => {
    const h = use();
    const t = await createTenant(h);
    const a = (await createAgent(h, t)).agentId;
    const batch = [
      ev(h, 'agent.login', { agentId: a }),
      ev(h, 'call.queued', { callId: 'rp' }),
      ev(h, 'call.ringing', { callId: 'rp', agentId: a }),
      ev(h, 'call.ended', { callId: 'rp' }),
    ];
    await ingestOk(h, t.ssid, batch);
    expect(await ingest(h, t.ssid, batch)).toEqual({ accepted: 0, duplicates: 4, errors: [] });
    const n = await h.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM calls WHERE account_id = $1', [t.accountId]);
    expect(Number(n!.n)).toBe(1);
  });
});
