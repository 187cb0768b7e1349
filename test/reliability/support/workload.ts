import fc from 'fast-check';
import type { Answer } from '../../helpers/process.js';
import { TEST_ADMIN } from '../../helpers/process.js';
import { validValue } from './arbitraries.js';
import { ownFields, type ApiOperation, type JsonSchema } from './openapi.js';

/**
 * A deterministic mixed workload for comparing one node with several: a
 * scripted set-up (tenant, groups, role, agents, DID, contacts, DNC,
 * blacklist, sticky, events) followed by seeded requests derived from every
 * operation's schema. The same seed gives the same requests, so two runs on
 * fresh databases must give the same answers up to secrets and clock times.
 */

export type Send = (path: string, body: Record<string, unknown>) => Promise<Answer>;

interface Vars {
  operator: string;
  ssid: string;
  agentIds: number[];
  roleId: number;
  did: string;
}

type Step = { op: string; body: (v: Vars) => Record<string, unknown>; keep?: (a: Answer, v: Vars) => void };

const TENANT = { username: 'mn-tenant', password: 'mn-tenant-password' };

const data = (a: Answer) => (a.body?.data ?? {}) as Record<string, unknown>;

function script(now: number): Step[] {
  const agent = (i: number) => ({
    name: `Node Agent`,
    email: `mn-agent-${i}@example.com`,
    password: 'agent-password',
    phone: `98700000${i}0`,
    call_pass: '12345678',
    dest_type: 'MOBILE',
    dest_value: `98700000${i}0`,
  });
  return [
    { op: 'auth/login', body: () => ({ ...TEST_ADMIN }), keep: (a, v) => void (v.operator = a.body?.ssid as string) },
    { op: 'account/create', body: (v) => ({ ssid: v.operator, ...TENANT, name: 'Multi node' }) },
    { op: 'auth/login', body: () => ({ ...TENANT }), keep: (a, v) => void (v.ssid = a.body?.ssid as string) },
    { op: 'account/updateSettings', body: (v) => ({ ssid: v.ssid, timezone: 'Asia/Kolkata', ghostThresholdSecs: 5 }) },
    { op: 'account/getSettings', body: (v) => ({ ssid: v.ssid }) },
    { op: 'group/create', body: (v) => ({ ssid: v.ssid, groupId: 55, name: 'Sales' }) },
    { op: 'group/create', body: (v) => ({ ssid: v.ssid, name: 'Support' }) },
    {
      op: 'role/create',
      body: (v) => ({ ssid: v.ssid, name: 'Supervisor', permissions: ['agent.view', 'agent.live'] }),
      keep: (a, v) => void (v.roleId = data(a).roleId as number),
    },
    {
      op: 'Agent/create',
      body: (v) => ({ ssid: v.ssid, ...agent(1), role: v.roleId, group: { 55: { receive_call: 'Y' } } }),
      keep: (a, v) => void v.agentIds.push(data(a).agentId as number),
    },
    {
      op: 'Agent/create',
      body: (v) => ({ ssid: v.ssid, ...agent(2), role: v.roleId, group: { 55: { receive_call: 'Y' } } }),
      keep: (a, v) => void v.agentIds.push(data(a).agentId as number),
    },
    { op: 'Agent/create', body: (v) => ({ ssid: v.ssid, ...agent(1), role: v.roleId }) },
    { op: 'did/create', body: (v) => ({ ssid: v.ssid, did: v.did }) },
    { op: 'did/list', body: (v) => ({ ssid: v.ssid }) },
    { op: 'Directory/create', body: (v) => ({ ssid: v.ssid, contact: '+91 98765-43210', contactinfo: { name: 'Asha Rao' } }) },
    { op: 'Directory/create', body: (v) => ({ ssid: v.ssid, contact: '919876543210' }) },
    { op: 'Directory/update', body: (v) => ({ ssid: v.ssid, contact: '919876543210', contactinfo: { company: 'Acme' } }) },
    { op: 'Directory/getInfo', body: (v) => ({ ssid: v.ssid, cn: '919876543210' }) },
    { op: 'Directory/setDnc', body: (v) => ({ ssid: v.ssid, contact: '919876543210', dnc: -1 }) },
    { op: 'Directory/getDnc', body: (v) => ({ ssid: v.ssid, contact: '919876543210' }) },
    { op: 'Directory/Blacklist', body: (v) => ({ ssid: v.ssid, contact: '919811111111', DID: [v.did] }) },
    { op: 'Directory/setSticky', body: (v) => ({ ssid: v.ssid, contact: '919876543210', agentId: v.agentIds[0], type: 'all', expiry: -1 }) },
    { op: 'Directory/getSticky', body: (v) => ({ ssid: v.ssid, contact: '919876543210' }) },
    { op: 'Agent/setCad', body: (v) => ({ ssid: v.ssid, agentIds: v.agentIds }) },
    { op: 'Agent/unsetCad', body: (v) => ({ ssid: v.ssid, agentIds: v.agentIds }) },
    {
      op: 'events/ingest',
      body: (v) => ({
        ssid: v.ssid,
        events: [
          { eventId: 'e1', type: 'agent.login', ts: now, agentId: v.agentIds[0], loginType: 'Web' },
          { eventId: 'e2', type: 'call.queued', ts: now + 1, callId: 'c1', groupId: 55, did: v.did, caller: '919876543210' },
          { eventId: 'e3', type: 'call.ringing', ts: now + 2, callId: 'c1', agentId: v.agentIds[0] },
          { eventId: 'e4', type: 'call.answered', ts: now + 3, callId: 'c1', agentId: v.agentIds[0] },
          { eventId: 'e5', type: 'call.queued', ts: now + 4, callId: 'c2', groupId: 55, did: v.did, caller: '919811111111' },
          { eventId: 'e2', type: 'call.queued', ts: now + 1, callId: 'c1', groupId: 55, did: v.did },
        ],
      }),
    },
    { op: 'route/decide', body: (v) => ({ ssid: v.ssid, caller: '919811111111', did: v.did }) },
    { op: 'route/decide', body: (v) => ({ ssid: v.ssid, caller: '919876543210', did: v.did }) },
    { op: 'queue/list', body: (v) => ({ ssid: v.ssid }) },
    { op: 'Agent/list', body: (v) => ({ ssid: v.ssid }) },
    { op: 'group/list', body: (v) => ({ ssid: v.ssid }) },
    { op: 'role/list', body: (v) => ({ ssid: v.ssid }) },
    { op: 'events/ingest', body: (v) => ({ ssid: v.ssid, events: [{ eventId: 'e6', type: 'call.ended', ts: now + 30, callId: 'c1', reason: 'completed' }] }) },
    { op: 'Agent/update', body: (v) => ({ ssid: v.ssid, agentId: v.agentIds[1], name: 'Renamed Agent' }) },
    { op: 'Agent/delete', body: (v) => ({ ssid: v.ssid, agentId: v.agentIds[1] }) },
    { op: 'Agent/list', body: (v) => ({ ssid: v.ssid }) },
  ];
}

/**
 * Runs the workload; `send(i)` picks the node for request `i`. Answers the
 * normalised answers, one line per request.
 */
export async function runWorkload(
  ops: ApiOperation[],
  sendVia: (i: number) => Send,
  opts: { seed: number; generated: number; now: number },
): Promise<string[]> {
  const byId = new Map(ops.map((o) => [o.id, o]));
  const v: Vars = { operator: '', ssid: '', agentIds: [], roleId: 0, did: '8044556677' };
  const out: string[] = [];
  let i = 0;
  for (const step of script(opts.now)) {
    const op = byId.get(step.op);
    if (!op) continue;
    const a = await sendVia(i++)(op.path, step.body(v));
    step.keep?.(a, v);
    out.push(`${step.op} ${normalise(a)}`);
  }
  const authed = ops.filter((o) => o.auth && o.id !== 'auth/logout');
  const gen = fc.sample(
    fc.constantFrom(...authed).chain((op) => {
      const fields = Object.fromEntries(ownFields(op));
      const shape: JsonSchema = { type: 'object', properties: fields, required: (op.body.required ?? []).filter((k) => k in fields) };
      return (validValue(shape) as fc.Arbitrary<Record<string, unknown>>).map((body) => ({ op, body }));
    }),
    { numRuns: opts.generated, seed: opts.seed },
  );
  for (const { op, body } of gen) {
    const a = await sendVia(i++)(op.path, { ...body, ssid: v.ssid });
    out.push(`${op.id} ${normalise(a)}`);
  }
  return out;
}

/** Keys whose values depend on the wall clock or are secrets (`avT`, `availableSecs`: seconds in the state so far). */
const VOLATILE = /(ssid|token|secret|time|date|expires|At$|^ts$|since|dura|wait|elapsed|^t[A-Z]|lcT|^uid$|^st1$|^chart$|^avT$|^availableSecs$)/i;

export function normalise(a: Answer): string {
  return `${a.http} ${JSON.stringify(a.body, (k, val: unknown) => (k && VOLATILE.test(k) ? '<v>' : val))}`;
}
