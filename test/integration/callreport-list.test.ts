import { parse } from 'csv-parse/sync';
import { expect, it } from 'vitest';
import { createAgent, createRole } from '../helpers/admin.js';
import { login } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';
import { SCALAR_FIELDS } from '../../src/modules/callreport/report.js';
import { scriptCalls, T0 } from './callreport.fixtures.js';

type Page = { data: Array<{ callId: string }>; nextCursor: string | null };

forEachDatabase('CallReport/list and the CSV export', (use) => {
  it('newest first, each filter, cursor paging to the end', async () => {
    const h = use();
    const { t, g, a1, sup } = await scriptCalls(h);
    const ids = async (body: Record<string, unknown>) => {
      const res = await h.post<Page>('/api/v2/CallReport/list', { ssid: t.ssid, ...body });
      expect(res.body.status, JSON.stringify(res.body)).toBe('success');
      return res.body.data.map((r) => r.callId);
    };
    expect(await ids({})).toEqual(['c4', 'c3', 'c2', 'c1']);
    expect(await ids({ cType: 'OBD' })).toEqual(['c2']);
    expect(await ids({ cType: ['IBD'] })).toEqual(['c4', 'c3', 'c1']);
    expect(await ids({ cType: 'CTC' })).toEqual([]);
    expect(await ids({ callStatus: 0 })).toEqual(['c3']);
    expect(await ids({ callStatus: '1' })).toEqual(['c2']);
    expect(await ids({ callStatus: 2 })).toEqual(['c4']);
    expect(await ids({ callStatus: 3 })).toEqual(['c1']);
    expect(await ids({ agentId: a1.agentId })).toEqual(['c4', 'c3', 'c1']);
    expect(await ids({ agentId: sup.agentId })).toEqual(['c1']); // by takeover only
    expect(await ids({ groupId: g })).toEqual(['c4', 'c3', 'c1']);
    expect(await ids({ did: '18005550100' })).toEqual(['c3', 'c1']);
    expect(await ids({ caller: '+91 98000-00003' })).toEqual(['c1']);
    // from / to select by queued time: Unix seconds, or the account's wall clock (21:33:20 Kolkata = T0 + 200).
    expect(await ids({ from: T0 + 200, to: T0 + 300 })).toEqual(['c3', 'c2']);
    expect(await ids({ from: '11-24-2026 21:33:20', to: '11/24/2026 21:35:00' })).toEqual(['c3', 'c2']);

    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 3; i++) {
      const res = await h.post<Page>('/api/v2/CallReport/list', { ssid: t.ssid, limit: 3, ...(cursor ? { cursor } : {}) });
      seen.push(...res.body.data.map((r) => r.callId));
      if (res.body.nextCursor === null) break;
      cursor = res.body.nextCursor;
    }
    expect(seen).toEqual(['c4', 'c3', 'c2', 'c1']);
    const last = await h.post<Page>('/api/v2/CallReport/list', {
      ssid: t.ssid,
      limit: 2,
      cursor: (await h.post<Page>('/api/v2/CallReport/list', { ssid: t.ssid, limit: 2 })).body.nextCursor,
    });
    expect(last.body.data.map((r) => r.callId)).toEqual(['c2', 'c1']);
    // A full last page still names a cursor; the page after it is empty with a null cursor.
    const after = await h.post<Page>('/api/v2/CallReport/list', { ssid: t.ssid, limit: 2, cursor: last.body.nextCursor });
    expect(after.body).toMatchObject({ data: [], nextCursor: null });
  });

  it('limit default 50, at most 1000; bad cursor, callStatus, cType: 1000; bad date: 1001', async () => {
    const h = use();
    const { t } = await scriptCalls(h);
    const code = async (body: Record<string, unknown>) => (await h.post('/api/v2/CallReport/list', { ssid: t.ssid, ...body })).body.code;
    expect(await code({ limit: 1000 })).toBe(200);
    expect(await code({ limit: 1001 })).toBe(1000);
    expect(await code({ limit: 0 })).toBe(1000);
    expect(await code({ cursor: 'not-a-cursor' })).toBe(1000);
    expect(await code({ callStatus: 4 })).toBe(1000);
    expect(await code({ cType: 'XYZ' })).toBe(1000);
    expect(await code({ from: '2026-13-45' })).toBe(1001);
    // 50 by default: 55 calls ended before any offer, the first page holds 50.
    const events = [];
    for (let i = 0; i < 55; i++) {
      events.push({ eventId: `q${i}`, type: 'call.queued', ts: T0 + 1000 + i, callId: `bulk-${i}` });
      events.push({ eventId: `e${i}`, type: 'call.ended', ts: T0 + 1001 + i, callId: `bulk-${i}` });
    }
    await h.post('/api/v2/events/ingest', { ssid: t.ssid, events });
    const page = await h.post<Page>('/api/v2/CallReport/list', { ssid: t.ssid });
    expect(page.body.data).toHaveLength(50);
    expect(page.body.data[0]!.callId).toBe('bulk-54');
  });

  it('export: RFC 4180 CSV with a header row, filters, credentials by ssid, userId+token or Bearer; 401 envelope without', async () => {
    const h = use();
    const { t } = await scriptCalls(h);
    const get = (url: string, headers: Record<string, string> = {}) => h.app.inject({ method: 'GET', url, headers });
    const res = await get(`/api/v2/CallReport/export?ssid=${t.ssid}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const rows = parse(res.body, { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(rows[0]!)).toEqual([...SCALAR_FIELDS]);
    expect(rows.map((r) => r.callId)).toEqual(['c4', 'c3', 'c2', 'c1']);
    const list = (await h.post<{ data: Array<Record<string, unknown>> }>('/api/v2/CallReport/list', { ssid: t.ssid })).body.data;
    // Every scalar cell is the list's value as text (null: empty).
    expect(rows).toEqual(list.map((r) => Object.fromEntries(SCALAR_FIELDS.map((f) => [f, r[f] === null ? '' : String(r[f])]))));
    expect(res.body.split('\r\n')[0]).toBe(SCALAR_FIELDS.join(','));

    const bearer = await get('/api/v2/CallReport/export?callStatus=3', { authorization: `Bearer ${t.ssid}` });
    expect((parse(bearer.body, { columns: true }) as Array<Record<string, string>>).map((r) => r.callId)).toEqual(['c1']);
    const tok = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid, name: 'CRM' });
    expect(tok.body.status).toBe('success');
    const byToken = await get(`/api/v2/CallReport/export?userId=${tok.body.userId}&token=${tok.body.token}&cType=OBD`);
    expect((parse(byToken.body, { columns: true }) as Array<Record<string, string>>).map((r) => r.callId)).toEqual(['c2']);
    for (const url of ['/api/v2/CallReport/export', '/api/v2/CallReport/export?ssid=wrong']) {
      const denied = await get(url);
      expect(denied.statusCode).toBe(401);
      // The catalogue's sentence, with what was wrong after it ("Invalid token: no credentials").
      expect(denied.json()).toEqual({ status: 'error', code: 1014, message: expect.stringMatching(/^Invalid token(: .+)?$/) as unknown });
    }
    const bad = await get(`/api/v2/CallReport/export?ssid=${t.ssid}&from=yesterday`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ status: 'error', code: 1001 });
    const role = await createRole(h, t, { permissions: ['agent.live'] });
    const ag = await createAgent(h, t, { role });
    const s = await login(h, ag.email, ag.password);
    const forbidden = await get(`/api/v2/CallReport/export?ssid=${s.ssid}`);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toMatchObject({ status: 'error', code: 1015 });
  });
});
