import { expect, it } from 'vitest';
import { createAgent, createRole } from '../helpers/admin.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';
import { ev, ingest } from './events.fixtures.js';
import { scriptCalls } from './callreport.fixtures.js';

type Report = Record<string, unknown> & { nHDetail: Array<Record<string, unknown>> };

forEachDatabase('call reports: every field, for calls of every shape', (use) => {
  it('answered after a missed offer, holds, a takeover, recordings during and after the call', async () => {
    const h = use();
    const { t, g, a1, a2, sup, phones, rec } = await scriptCalls(h);
    const res = await h.post<{ data: Report }>('/api/v2/CallReport/detail', { ssid: t.ssid, clId: 'c1' });
    expect(res.body.data).toEqual({
      callId: 'c1',
      callStatus: 3,
      cType: 'IBD',
      DID: '18005550100',
      campId: 0,
      userId: String(t.accountId),
      cNumber: '919800000003',
      ivrSTime: '2026-11-24 21:30:00',
      ivrETime: '2026-11-24 21:31:40',
      firstAnswerTime: '2026-11-24 21:30:20',
      lastHangupTime: '2026-11-24 21:31:40',
      ivrDuration: 100,
      talkDuration: 65, // 100 - 20 (first answer) - 15 hold (12 + 3)
      totalHoldDuration: 15,
      masterAgent: a2.agentId,
      masterAgentNumber: phones.a2,
      masterGroupId: g,
      firstAttended: 'agent',
      recordings: [
        { nodeid: '#2', file: rec.main, time: '2026-11-24 21:30:50' },
        // Reported 30 s after the end, without an agent: the leg connected last.
        { nodeid: '#3', file: rec.late, time: '2026-11-24 21:32:10' },
      ],
      nHDetail: [
        leg('#1', a1.agentId, phones.a1, g, 'missed', 10, 0, 0, null, null, null),
        leg('#2', a2.agentId, phones.a2, g, 'answered', 5, 48, 12, '2026-11-24 21:30:20', '2026-11-24 21:31:20', rec.main), // 80 - 20 - 12
        leg('#3', sup.agentId, phones.sup, g, 'answered', 0, 17, 3, '2026-11-24 21:31:20', '2026-11-24 21:31:40', rec.late), // 100 - 80 - 3
      ],
      callDisposition: 'completed',
      retryOf: 'c-0',
    });
    // callId is accepted for clId.
    const same = await h.post<{ data: Report }>('/api/v2/CallReport/detail', { ssid: t.ssid, callId: 'c1' });
    expect(same.body.data).toEqual(res.body.data);
    // The service answers the same inside a transaction (the webhook outbox builds it in the ingest transaction):
    // every read goes through that transaction, so SQLite's single connection does not wait for itself.
    const inTx = await h.db.transaction((tx) => h.services.callReports.report(tx, t.accountId, 'c1'));
    expect(inTx).toEqual(res.body.data);
    const batch = await h.db.transaction((tx) => h.services.callReports.reports(tx, t.accountId, ['c3', 'nope', 'c1']));
    expect(batch.map((r) => r.callId)).toEqual(['c3', 'c1']);
    expect(await h.services.callReports.report(null, t.accountId, 'nope')).toBeUndefined();
  });

  it('ended before any offer (1), failed (0), offered but never answered with a late miss (2)', async () => {
    const h = use();
    const { t, g, a1, phones } = await scriptCalls(h);
    const get = async (clId: string) => (await h.post<{ data: Report }>('/api/v2/CallReport/detail', { ssid: t.ssid, clId })).body.data;
    const none = {
      firstAnswerTime: null,
      lastHangupTime: null,
      talkDuration: 0,
      totalHoldDuration: 0,
      masterAgent: null,
      masterAgentNumber: null,
      masterGroupId: null,
      firstAttended: null,
      recordings: [],
      retryOf: null,
    };
    expect(await get('c2')).toEqual({
      callId: 'c2',
      callStatus: 1,
      cType: 'OBD',
      DID: null,
      campId: 42,
      userId: String(t.accountId),
      cNumber: '5550002',
      ivrSTime: '2026-11-24 21:33:20',
      ivrETime: '2026-11-24 21:33:27',
      ivrDuration: 7,
      nHDetail: [],
      callDisposition: '',
      ...none,
    });
    expect(await get('c3')).toEqual({
      callId: 'c3',
      callStatus: 0,
      cType: 'IBD',
      DID: '18005550100',
      campId: 0,
      userId: String(t.accountId),
      cNumber: '5550003',
      ivrSTime: '2026-11-24 21:35:00',
      ivrETime: '2026-11-24 21:35:04',
      ivrDuration: 4,
      nHDetail: [leg('#1', a1.agentId, phones.a1, g, 'missed', 3, 0, 0, null, null, null)],
      callDisposition: 'failed',
      ...none,
    });
    expect(await get('c4')).toMatchObject({
      callStatus: 2,
      ivrDuration: 11,
      nHDetail: [leg('#1', a1.agentId, phones.a1, g, 'missed', 6, 0, 0, null, null, null)],
      callDisposition: 'abandoned',
      ...none,
    });
  });

  it('call.recording: rejected for an unknown call (1012), an unknown agent (1509), a path that could leave the directory (1000) or another tenant’s path (1524)', async () => {
    const h = use();
    const { t, rec } = await scriptCalls(h);
    const out = await ingest(h, t.ssid, [
      ev(h, 'call.recording', { callId: 'nope', path: 'a.wav' }),
      ev(h, 'call.recording', { callId: 'c1', agentId: 999999, path: 'a.wav' }),
      ...['../a.wav', '/etc/passwd', 'a/../../b.wav', 'a//b.wav', 'a\\b.wav', '', 'x*y.wav'].map((path) => ev(h, 'call.recording', { callId: 'c1', path })),
      ev(h, 'call.recording', { callId: 'c1' }),
    ]);
    expect(out.accepted).toBe(0);
    expect(out.errors.map((e) => e.code)).toEqual([1012, 1509, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000]);
    // A path belongs to the account that reported it first: another tenant cannot claim it (and so get a token for it).
    const other = await createTenant(h);
    await ingest(h, other.ssid, [ev(h, 'call.queued', { callId: 'x1' })]);
    const stolen = await ingest(h, other.ssid, [
      ev(h, 'call.recording', { callId: 'x1', path: rec.main }),
      ev(h, 'call.recording', { callId: 'x1', path: 'x1.wav' }),
    ]);
    expect(stolen.errors.map((e) => [e.index, e.code])).toEqual([[0, 1524]]);
    expect(stolen.accepted).toBe(1);
  });

  it('detail: 1012 for an unknown, still live or another tenant’s call, 1000 without clId; list and detail need analysis.view (1015)', async () => {
    const h = use();
    const { t, g } = await scriptCalls(h);
    await ingest(h, t.ssid, [ev(h, 'call.queued', { callId: 'live-1', groupId: g })]);
    expect((await h.post('/api/v2/CallReport/detail', { ssid: t.ssid, clId: 'nope' })).body.code).toBe(1012);
    expect((await h.post('/api/v2/CallReport/detail', { ssid: t.ssid, clId: 'live-1' })).body.code).toBe(1012);
    expect((await h.post('/api/v2/CallReport/detail', { ssid: t.ssid, rType: ['rcrd'] })).body.code).toBe(1000);
    const role = await createRole(h, t, { permissions: ['agent.live'] });
    const ag = await createAgent(h, t, { role });
    const s = await login(h, ag.email, ag.password);
    expect((await h.post('/api/v2/CallReport/detail', { ssid: s.ssid, clId: 'c1' })).body.code).toBe(1015);
    expect((await h.post('/api/v2/CallReport/list', { ssid: s.ssid })).body.code).toBe(1015);
    // Another tenant's call answers like one nobody has; its list does not show it.
    const other = await createTenant(h);
    expect((await h.post('/api/v2/CallReport/detail', { ssid: other.ssid, clId: 'c1' })).body.code).toBe(1012);
    expect((await h.post<{ data: unknown[] }>('/api/v2/CallReport/list', { ssid: other.ssid })).body.data).toEqual([]);
    const viewer = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['analysis.view'] }) });
    const v = await login(h, viewer.email, viewer.password);
    expect((await h.post('/api/v2/CallReport/detail', { ssid: v.ssid, clId: 'c1' })).body.status).toBe('success');
  });
});

function leg(
  nodeId: string,
  agentId: number,
  number: string,
  groupId: number,
  status: string,
  totalRingDuration: number,
  talkDuration: number,
  totalHoldDuration: number,
  answerSTime: string | null,
  answerETime: string | null,
  recording: string | null,
) {
  return { nodeId, agentId, number, groupId, status, totalRingDuration, talkDuration, totalHoldDuration, answerSTime, answerETime, recording };
}
