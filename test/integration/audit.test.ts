import { afterAll, beforeAll, expect, it } from 'vitest';
import { isAuditExempt, type AuditExempt, type AuditSpec } from '../../src/http/operation.js';
import { CONTACTINFO_FIELDS, OTHER_FIELDS } from '../../src/modules/directory/contact-fields.js';
import { allOperations } from '../../src/modules/index.js';
import { createAgent, createDid, createGroup, uniquePhone } from '../helpers/admin.js';
import { createTenant, loginOperator, unique, type Session } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { deliverDue, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { auditList, lastAuditId, recordsSince, type AuditView } from './audit.fixtures.js';
import { advance, ev, ingestOk, nowSec } from './events.fixtures.js';
import { endCall } from './webhooks.fixtures.js';

type Row = Record<string, unknown>;
type Env = Record<string, unknown> & { t: Session & { accountId: number }; op: Session };

/**
 * One successful call of each writing operation, in an order where each
 * finds what it needs, and the record it must leave: its target and what
 * its changes must show.
 */
interface Step {
  op: string;
  /** Who calls: the tenant's client session by default, the operator, or an agent of the tenant (e.desk). */
  as?: 'operator' | 'agent';
  body(e: Env): Row;
  target: string;
  id?(e: Env): string | null;
  changes?(c: AuditView['changes'], e: Env): void;
  /** Keeps what later steps need from the answer. */
  keep?(answer: Row, e: Env): void;
}

const R = '[redacted]';
const CONTACT = '919876500011';

const STEPS: Step[] = [
  {
    op: 'account/create',
    as: 'operator',
    body: () => ({ username: unique('audited-'), password: 'first-password', name: 'Audited' }),
    target: 'account',
    keep: (a, e) => (e.newAccount = (a.data as Row).userId),
    id: (e) => String(e.newAccount),
    changes: (c) => {
      expect(c.password).toEqual([null, R]);
      expect(c.name).toEqual([null, 'Audited']);
    },
  },
  {
    op: 'account/updateSettings',
    body: () => ({ timezone: 'Asia/Kolkata', ghostThresholdSecs: 7, customFields: [{ key: 'custom_plan', type: 'text' }], retention: { auditDays: 30 } }),
    target: 'account',
    id: (e) => String(e.t.accountId),
    changes: (c) =>
      expect(c).toEqual({
        timezone: ['UTC', 'Asia/Kolkata'],
        ghostThresholdSecs: [3, 7],
        customFields: [[], [{ key: 'custom_plan', type: 'text' }]],
        retention: [
          { callDays: null, recordingDays: null, auditDays: null },
          { callDays: null, recordingDays: null, auditDays: 30 },
        ],
      }),
  },
  { op: 'did/create', body: (e) => ({ did: e.did2 }), target: 'did', id: (e) => String(e.did2), changes: (c) => expect(c).toEqual({}) },
  {
    op: 'group/create',
    body: () => ({ name: 'Audit group' }),
    target: 'group',
    keep: (a, e) => (e.group = (a.data as Row).groupId),
    changes: (c) => expect(c).toEqual({ name: [null, 'Audit group'] }),
  },
  {
    op: 'group/update',
    body: (e) => ({ groupId: e.group, name: 'Renamed' }),
    target: 'group',
    id: (e) => String(e.group),
    changes: (c) => expect(c).toEqual({ name: ['Audit group', 'Renamed'] }),
  },
  {
    op: 'role/create',
    body: () => ({ name: 'Auditor', permissions: ['audit.view'] }),
    target: 'role',
    keep: (a, e) => (e.role = (a.data as Row).roleId),
    changes: (c) => expect(c).toEqual({ name: [null, 'Auditor'], permissions: [null, ['audit.view']], can_see: [null, 1], status: [null, 1] }),
  },
  {
    op: 'role/update',
    body: (e) => ({ roleId: e.role, can_see: 0, permissions: ['audit.view', 'agent.view'] }),
    target: 'role',
    id: (e) => String(e.role),
    changes: (c) => expect(c).toEqual({ can_see: [1, 0], permissions: [['audit.view'], ['audit.view', 'agent.view']] }),
  },
  {
    op: 'Agent/create',
    body: (e) => {
      const phone = uniquePhone();
      return {
        name: 'Asha',
        email: `${unique('a-')}@example.com`,
        password: 'agent-password',
        phone,
        call_pass: '12345678',
        dest_type: 'MOBILE',
        dest_value: phone,
        role: e.role,
      };
    },
    target: 'agent',
    keep: (a, e) => (e.agent = (a.data as Row).agentId),
    changes: (c, e) => {
      expect(c.password).toEqual([null, R]);
      expect(c.call_pass).toEqual([null, R]);
      expect(c.name).toEqual([null, 'Asha']);
      expect(c.role).toEqual([null, e.role]);
      expect(c.dest_type).toEqual([null, 'MOBILE']);
    },
  },
  {
    op: 'Agent/update',
    body: (e) => ({ agentId: e.agent, name: 'Asha Rao', password: 'changed-password', call_pass: '87654321' }),
    target: 'agent',
    id: (e) => String(e.agent),
    changes: (c) => expect(c).toEqual({ name: ['Asha', 'Asha Rao'], password: [R, R], call_pass: [R, R] }),
  },
  {
    op: 'Agent/setCad',
    body: (e) => ({ agentIds: [e.agent] }),
    target: 'agent',
    id: (e) => String(e.agent),
    changes: (c) => expect(c).toEqual({ cad: [0, 1] }),
  },
  {
    op: 'Agent/unsetCad',
    body: (e) => ({ agentIds: [e.agent, e.agent2] }),
    target: 'agent',
    id: (e) => `${e.agent},${e.agent2}`,
    changes: (c, e) => expect(c).toEqual({ [`${e.agent}.cad`]: [1, 0] }),
  },
  {
    op: 'Agent/updateAgentGroupMapping',
    body: (e) => ({ agentId: e.agent, group: { [String(e.group)]: { receive_call: 'Y' } } }),
    target: 'agent',
    id: (e) => String(e.agent),
    changes: (c, e) => expect(c).toEqual({ group: [{}, { [String(e.group)]: { receive_call: 'Y' } }] }),
  },
  {
    op: 'auth/token',
    body: () => ({ name: 'CRM' }),
    target: 'token',
    keep: (a, e) => (e.token = a.token),
    changes: (c) => expect(c).toMatchObject({ kind: [null, 'api'], name: [null, 'CRM'] }),
  },
  { op: 'auth/revokeToken', body: (e) => ({ revoke: e.token }), target: 'token', changes: (c) => expect(c.kind).toEqual(['api', null]) },
  {
    op: 'Directory/create',
    target: 'contact',
    id: () => CONTACT,
    body: () => ({ contact: CONTACT, contactinfo: { name: 'Ravi', custom_plan: 'gold' }, other: { totalcalls: 2, vip: true } }),
    changes: (c) => expect(c).toEqual({ name: [null, 'Ravi'], custom_plan: [null, 'gold'], totalcalls: [null, 2], vip: [null, true] }),
  },
  {
    op: 'Directory/update',
    body: () => ({ contact: CONTACT, contactinfo: { name: 'Ravi K' } }),
    target: 'contact',
    id: () => CONTACT,
    changes: (c) => expect(c).toEqual({ name: ['Ravi', 'Ravi K'] }),
  },
  {
    op: 'Directory/setDnc',
    body: () => ({ contact: CONTACT, dnc: -1 }),
    target: 'dnc',
    id: () => CONTACT,
    changes: (c) => expect(c).toEqual({ dnc: [null, -1] }),
  },
  {
    op: 'Directory/Blacklist',
    body: (e) => ({ contact: CONTACT, DID: [e.did] }),
    target: 'blacklist',
    id: () => CONTACT,
    changes: (c, e) => expect(c).toEqual({ DID: [null, [e.did]] }),
  },
  {
    op: 'Directory/setSticky',
    body: (e) => ({ contact: CONTACT, agentId: e.agent, type: 'all', expiry: -1 }),
    target: 'sticky',
    id: () => CONTACT,
    changes: (c, e) => expect(c).toEqual({ all: [null, { agentId: e.agent, expiry: -1 }] }),
  },
  {
    op: 'Directory/removeSticky',
    body: () => ({ contact: CONTACT, type: 'all' }),
    target: 'sticky',
    id: () => CONTACT,
    changes: (c, e) => expect(c).toEqual({ all: [{ agentId: e.agent, expiry: -1 }, null] }),
  },
  {
    op: 'webhook/create',
    body: (e) => {
      // Created unverified, so webhook/verify below has a change to record.
      (e.rx as Receiver).verifyAnswer = { status: 200, body: 'no' };
      return { url: (e.rx as Receiver).url, name: 'CRM' };
    },
    target: 'webhook',
    keep: (a, e) => (e.webhook = (a.data as Row).webhookId),
    changes: (c) => {
      expect(c.secret).toEqual([null, R]);
      expect(c.status).toEqual([null, 'unverified']);
      expect(c.lastError?.[0]).toBeNull();
    },
  },
  {
    op: 'webhook/update',
    body: (e) => ({ webhookId: e.webhook, name: 'CRM 2' }),
    target: 'webhook',
    id: (e) => String(e.webhook),
    changes: (c) => expect(c).toEqual({ name: ['CRM', 'CRM 2'] }),
  },
  {
    op: 'webhook/verify',
    body: (e) => {
      (e.rx as Receiver).verifyAnswer = { status: 200, body: 'GODBLESSYOU' };
      return { webhookId: e.webhook };
    },
    target: 'webhook',
    id: (e) => String(e.webhook),
    changes: (c) => expect(c.status).toEqual(['unverified', 'active']),
  },
  {
    op: 'webhook/redeliver',
    body: (e) => ({ deliveryId: e.delivery }),
    target: 'webhook',
    id: () => null,
    changes: (c, e) => expect(c).toEqual({ redeliver: [null, e.delivery] }),
  },
  {
    op: 'call/originate',
    body: (e) => ({ agentId: e.agent, customer: '+91 98111 00042' }),
    target: 'agent',
    id: (e) => String(e.agent),
    changes: (c) => expect(c.originate).toEqual([null, { callId: expect.any(String), customer: '919811100042' }]),
  },
  {
    op: 'Agent/setState',
    body: (e) => ({ agentId: e.agent, state: 'break', reason: 'lunch' }),
    target: 'agent',
    id: (e) => String(e.agent),
    changes: (c) => expect(c).toEqual({ state: [null, { state: 'break', reason: 'lunch' }] }),
  },
  {
    op: 'queue/callTakeover',
    body: (e) => ({ callId: 'aud-k1', agentid: e.sup }),
    target: 'agent',
    id: (e) => String(e.sup),
    changes: (c) => expect(c).toEqual({ callTakeover: [null, 'aud-k1'] }),
  },
  {
    op: 'webhook/delete',
    body: (e) => ({ webhookId: e.webhook }),
    target: 'webhook',
    id: (e) => String(e.webhook),
    changes: (c) => expect(c.name).toEqual(['CRM 2', null]),
  },
  {
    op: 'contactList/create',
    body: () => ({ name: 'Renewals' }),
    target: 'contactList',
    keep: (a, e) => (e.clId = (a.data as Row).clId),
    changes: (c) => expect(c).toEqual({ name: [null, 'Renewals'] }),
  },
  {
    op: 'AddContactApi/addContact',
    body: (e) => ({ clId: e.clId, action: 0, record: { number: '+1 415 555 0134', name: 'Ada', fields: { plan: 'gold' } }, campaignSchedule: 1768035600 }),
    target: 'listContact',
    keep: (a, e) => (e.listContact = (a.data as Row).contact_id),
    id: (e) => String(e.listContact),
    changes: (c, e) =>
      expect(c).toEqual({
        clId: [null, e.clId],
        number: [null, '14155550134'],
        name: [null, 'Ada'],
        fields: [null, { plan: 'gold' }],
        campaignSchedule: [null, 1768035600],
        deleted: [null, false],
      }),
  },
  {
    op: 'contactList/import',
    body: (e) => ({ clId: e.clId, records: [{ number: '14155550134', name: 'Ada L' }, { number: '14155550135' }, { number: 'x' }] }),
    target: 'contactList',
    id: (e) => String(e.clId),
    changes: (c) => expect(c).toEqual({ added: [null, 1], updated: [null, 1] }),
  },
  {
    op: 'AddContactApi/deleteContact',
    body: (e) => ({ clId: e.clId, delId: e.listContact }),
    target: 'listContact',
    id: (e) => String(e.listContact),
    changes: (c) => expect(c.name).toEqual(['Ada L', null]),
  },
  {
    op: 'contactList/delete',
    body: (e) => ({ clId: e.clId }),
    target: 'contactList',
    id: (e) => String(e.clId),
    changes: (c) => expect(c).toEqual({ name: ['Renewals', null] }),
  },
  {
    op: 'campaign/create',
    body: (e) => ({ name: 'Renewals', clIds: [e.campaignList], groupId: e.deskGroup, did: e.did, mode: 'preview', maxAttempts: 5 }),
    target: 'campaign',
    keep: (a, e) => (e.campaign = (a.data as Row).campaignId),
    changes: (c, e) => {
      expect(c).toMatchObject({
        name: [null, 'Renewals'],
        state: [null, 'draft'],
        mode: [null, 'preview'],
        clIds: [null, [e.campaignList]],
        maxAttempts: [null, 5],
      });
      expect(c.retryDelays).toEqual([null, { noAnswer: 3600, busy: 900, failed: 3600, machine: 14400, abandoned: 259200 }]);
    },
  },
  {
    op: 'campaign/update',
    body: (e) => ({ campaignId: e.campaign, callingHours: { start: '00:00', end: '23:59' }, ringSecs: 30 }),
    target: 'campaign',
    id: (e) => String(e.campaign),
    changes: (c) =>
      expect(c).toEqual({
        callingHours: [
          { start: '09:00', end: '21:00', weekDays: [1, 2, 3, 4, 5, 6, 7] },
          { start: '00:00', end: '23:59', weekDays: [1, 2, 3, 4, 5, 6, 7] },
        ],
        ringSecs: [25, 30],
      }),
  },
  {
    op: 'campaign/start',
    body: (e) => ({ campaignId: e.campaign }),
    target: 'campaign',
    id: (e) => String(e.campaign),
    changes: (c) => expect(c).toEqual({ state: ['draft', 'running'] }),
  },
  {
    op: 'campaign/preview',
    as: 'agent',
    body: (e) => ({ campaignId: e.campaign }),
    target: 'campaign',
    id: (e) => String(e.campaign),
    keep: (a, e) => (e.previewed = (a.data as Row).contactId),
    changes: (c, e) => expect(c).toEqual({ contactId: [null, e.previewed] }),
  },
  {
    op: 'campaign/previewSkip',
    as: 'agent',
    body: (e) => ({ campaignId: e.campaign, contactId: e.previewed }),
    target: 'campaign',
    id: (e) => String(e.campaign),
    changes: (c, e) => expect(c).toEqual({ contactId: [e.previewed, null] }),
  },
  {
    // Preceded by a campaign/preview of the agent (the contact it dials must be held for it).
    op: 'campaign/previewDial',
    as: 'agent',
    body: (e) => ({ campaignId: e.campaign, contactId: e.previewed }),
    target: 'campaign',
    id: (e) => String(e.campaign),
    keep: (a, e) => (e.campaignCall = (a.data as Row).callId),
    changes: (c, e) => expect(c).toEqual({ callId: [null, e.campaignCall] }),
  },
  {
    // Preceded by the switch's events: the agent answered the call.
    op: 'campaign/disposition',
    body: (e) => ({ callId: e.campaignCall, disposition: 'sale' }),
    target: 'campaign',
    id: (e) => String(e.campaign),
    changes: (c, e) => expect(c).toEqual({ disposition: [null, { callId: e.campaignCall, disposition: 'sale' }] }),
  },
  {
    op: 'campaign/pause',
    body: (e) => ({ campaignId: e.campaign }),
    target: 'campaign',
    id: (e) => String(e.campaign),
    changes: (c) => expect(c).toEqual({ state: ['running', 'paused'] }),
  },
  {
    op: 'campaign/stop',
    body: (e) => ({ campaignId: e.campaign }),
    target: 'campaign',
    id: (e) => String(e.campaign),
    changes: (c) => expect(c).toEqual({ state: ['paused', 'stopped'] }),
  },
  {
    op: 'campaign/delete',
    body: (e) => ({ campaignId: e.campaign }),
    target: 'campaign',
    id: (e) => String(e.campaign),
    changes: (c) => expect(c.name).toEqual(['Renewals', null]),
  },
  {
    op: 'Agent/delete',
    body: (e) => ({ agentId: e.agent }),
    target: 'agent',
    id: (e) => String(e.agent),
    changes: (c) => expect(c.name).toEqual(['Asha Rao', null]),
  },
  {
    op: 'role/delete',
    body: (e) => ({ roleId: e.role }),
    target: 'role',
    id: (e) => String(e.role),
    changes: (c) => expect(c.name).toEqual(['Auditor', null]),
  },
  {
    op: 'group/delete',
    body: (e) => ({ groupId: e.group }),
    target: 'group',
    id: (e) => String(e.group),
    changes: (c) => expect(c).toEqual({ name: ['Renamed', null] }),
  },
  { op: 'did/delete', body: (e) => ({ did: e.did2 }), target: 'did', id: (e) => String(e.did2) },
  {
    op: 'Directory/delete',
    body: () => ({ contact: CONTACT }),
    target: 'contact',
    id: () => CONTACT,
    changes: (c) => expect(c.name).toEqual(['Ravi K', null]),
  },
  {
    // Last: it rewrites the number in the records above. Its own record names the number's replacement.
    op: 'privacy/erase',
    body: () => ({ number: CONTACT }),
    target: 'contact',
    changes: (c) => expect(c).toEqual({ dnc: [1, 0], blacklist: [1, 0] }),
  },
];

const EXEMPT = ['auth/login', 'auth/logout', 'events/ingest', 'route/decide'];

/** The module whose operations spell each target type's fields. */
const TARGET_MODULE: Record<string, string> = {
  agent: 'Agent',
  group: 'group',
  role: 'role',
  did: 'did',
  contact: 'Directory',
  sticky: 'Directory',
  dnc: 'Directory',
  blacklist: 'Directory',
  account: 'account',
  token: 'auth',
  webhook: 'webhook',
  contactList: 'contactList',
  listContact: 'contactList',
  campaign: 'campaign',
};

/**
 * Keys a record may hold that no schema spells, each because the change
 * has no field of its own: what a takeover, an originate or a redelivery
 * did, a sticky setting named by its type and scope, the counts an
 * erasure removed.
 */
const NOT_FIELDS = /^(callTakeover|originate|redeliver|all|cli(_group)?(:.+)?|custom_[A-Za-z0-9_]+)$/;

/** Every property name of a schema, at any depth. */
function propertyNames(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const s of schema) propertyNames(s, into);
  else if (schema !== null && typeof schema === 'object') {
    const o = schema as Record<string, unknown>;
    if (o.properties && typeof o.properties === 'object') for (const k of Object.keys(o.properties)) into.add(k);
    for (const v of Object.values(o)) propertyNames(v, into);
  }
  return into;
}

/** JSON text of an array or object: what a stored column holds and the API never answers. */
function isEncodedJson(v: unknown): boolean {
  if (typeof v !== 'string' || !/^\s*[[{]/.test(v)) return false;
  try {
    return typeof JSON.parse(v) === 'object';
  } catch {
    return false;
  }
}

/**
 * PRODUCT.md §12: `changes` speaks the API's language. Each key (after a
 * bulk change's `<id>.`) is a field name the operation's module or the
 * target's module spells in a body or an answer, and no value, at any
 * depth, is JSON-encoded text.
 */
function expectApiWords(ops: ReturnType<typeof allOperations>, op: string, target: string, changes: AuditView['changes']): void {
  const modules = new Set([op.split('/')[0], TARGET_MODULE[target]]);
  const words = new Set<string>();
  for (const o of ops) if (modules.has(o.module)) propertyNames([o.body, o.response], words);
  // contactinfo and other are free-form in the schema (Type.Unknown); their fields are listed by the Directory.
  if (modules.has('Directory')) for (const f of [...CONTACTINFO_FIELDS, ...OTHER_FIELDS]) words.add(f);
  for (const [key, sides] of Object.entries(changes)) {
    const field = key.replace(/^[0-9]+\./, '');
    if (!NOT_FIELDS.test(field)) expect(words.has(field), `${op}: "${field}" is no field name of the API (${[...modules].join(', ')})`).toBe(true);
    const walk = (v: unknown): void => {
      expect(isEncodedJson(v), `${op}: ${field} holds JSON text ${String(v)}`).toBe(false);
      if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
    };
    walk(sides);
  }
}

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
});

async function environment(h: Harness): Promise<Env> {
  const t = await createTenant(h);
  const op = await loginOperator(h);
  const did = await createDid(h, t);
  const g = await createGroup(h, t);
  const a1 = await createAgent(h, t, { group: g });
  const sup = await createAgent(h, t, { group: g });
  // A live call answered by a1, for the takeover.
  await ingestOk(h, t.ssid, [
    ev(h, 'agent.login', { agentId: a1.agentId }),
    ev(h, 'agent.login', { agentId: sup.agentId }),
    ev(h, 'call.queued', { callId: 'aud-k1', groupId: g, caller: '919800000003' }),
    ev(h, 'call.ringing', { callId: 'aud-k1', agentId: a1.agentId }),
  ]);
  advance(h, 2);
  await ingestOk(h, t.ssid, [ev(h, 'call.answered', { callId: 'aud-k1', agentId: a1.agentId })]);
  // A preview campaign's world: an agent (who may read the trail) logged in to its group, a list of two contacts.
  const deskGroup = await createGroup(h, t);
  const { createRole, login } = { ...(await import('../helpers/admin.js')), ...(await import('../helpers/factories.js')) };
  const deskAgent = await createAgent(h, t, { group: deskGroup, role: await createRole(h, t, { permissions: ['audit.view'] }) });
  await ingestOk(h, t.ssid, [ev(h, 'agent.login', { agentId: deskAgent.agentId })]);
  const list = await h.post<{ data: { clId: number } }>('/api/v2/contactList/create', { ssid: t.ssid, name: 'Campaign list' });
  const campaignList = list.body.data.clId;
  await h.post('/api/v2/contactList/import', { ssid: t.ssid, clId: campaignList, records: [{ number: '919812300001' }, { number: '919812300002' }] });
  return {
    t,
    op,
    did,
    did2: `80${uniquePhone()}`,
    agent2: sup.agentId,
    sup: sup.agentId,
    rx,
    nowSec: nowSec(h),
    deskGroup,
    deskAgent: deskAgent.agentId,
    desk: await login(h, deskAgent.email, deskAgent.password),
    campaignList,
  };
}

forEachDatabase(
  'audit trail',
  (use) => {
    it('every writing operation is audited or exempt exactly as PRODUCT.md §12 says, and this walk covers each one', () => {
      const h = use();
      const ops = allOperations(h.services);
      const writing = ops.filter((o) => o.writes).map((o) => `${o.module}/${o.name}`);
      const exempt = ops.filter((o) => o.writes && isAuditExempt(o.audit as AuditSpec<never> | AuditExempt)).map((o) => `${o.module}/${o.name}`);
      expect(exempt.sort()).toEqual([...EXEMPT].sort());
      expect(writing.filter((w) => !EXEMPT.includes(w)).sort()).toEqual(STEPS.map((s) => s.op).sort());
    });

    it('each writing operation, called successfully, leaves exactly its record: principal, credential, ip, target, changed fields', async () => {
      const h = use();
      const ops = allOperations(h.services);
      const e = await environment(h);
      for (const step of STEPS) {
        if (step.op === 'webhook/redeliver') {
          await endCall(h, e.t, unique('aud-call-'));
          await deliverDue(h);
          const d = await h.post('/api/v2/webhook/deliveries', { ssid: e.t.ssid, webhookId: e.webhook });
          e.delivery = (d.body.data as Row[])[0]!.deliveryId;
        }
        if (step.op === 'campaign/previewDial') {
          const held = await h.post('/api/v2/campaign/preview', { ssid: (e.desk as Session).ssid, campaignId: e.campaign });
          e.previewed = (held.body.data as Row).contactId;
        }
        if (step.op === 'campaign/disposition') {
          const callId = e.campaignCall as string;
          const agentId = e.deskAgent as number;
          await ingestOk(h, e.t.ssid, [
            ev(h, 'call.queued', { callId, groupId: e.deskGroup, direction: 'outbound' }),
            ev(h, 'call.ringing', { callId, agentId }),
            ev(h, 'call.answered', { callId, agentId }),
            ev(h, 'call.dialing', { callId, direction: 'outbound' }),
            ev(h, 'call.connected', { callId, answeredBy: 'human' }),
          ]);
        }
        const who = step.as === 'operator' ? e.op : step.as === 'agent' ? (e.desk as Session) : e.t;
        const since = await lastAuditId(h, who);
        const res = await h.post(`/api/v2/${step.op}`, { ssid: who.ssid, ...step.body(e) }, { 'x-forwarded-for': '198.51.100.9' });
        expect(res.body.status, `${step.op} ${JSON.stringify(res.body)}`).toBe('success');
        step.keep?.(res.body as Row, e);
        const records = await recordsSince(h, who, since);
        expect(
          records.map((r) => r.operation),
          step.op,
        ).toEqual([step.op]);
        const r = records[0]!;
        expect(r.principal, step.op).toEqual({ kind: step.as === 'agent' ? 'agent' : 'client', id: who.userId, name: expect.any(String) });
        expect(r.credential).toBe('session');
        expect(r.ip).toBeTruthy();
        expect(r.at).toBeGreaterThan(1_700_000_000);
        expect(r.target.type, step.op).toBe(step.target);
        if (step.id) expect(r.target.id, step.op).toBe(step.id(e));
        step.changes?.(r.changes, e);
        expectApiWords(ops, step.op, step.target, r.changes);
        // Nothing secret, in any form, reaches the record.
        expect(JSON.stringify(r)).not.toMatch(/first-password|changed-password|agent-password|12345678|87654321|whsec_|\$argon2|scrypt/);
      }
    });

    it('the v3 clickToCall is recorded as the call it places; a failed change leaves no record', async () => {
      const h = use();
      const t = await createTenant(h);
      const phone = '919811100099';
      const agent = await createAgent(h, t, { phone, dest_type: 'MOBILE', dest_value: phone });
      const tok = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid });
      const since = await lastAuditId(h, t);
      const q = new URLSearchParams({ user_id: tok.body.userId, token: tok.body.token, agent_number: phone, customer: '919811100050' });
      const res = await h.app.inject({ method: 'POST', url: `/api/v3/clickToCall/para?${q.toString()}` });
      expect(res.json().status).toBe('success');
      const [r, ...more] = await recordsSince(h, t, since);
      expect(more).toEqual([]);
      expect(r).toMatchObject({ operation: 'clickToCall/para', credential: 'token', target: { type: 'agent', id: String(agent.agentId) } });
      expect(r!.changes.originate![1]).toMatchObject({ customer: '919811100050' });
      // Failures: an unknown agent, a duplicate DID: no record.
      const last = await lastAuditId(h, t);
      expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: 999999, name: 'x' })).body.status).toBe('error');
      const did = await createDid(h, t);
      const afterDid = await lastAuditId(h, t);
      expect(afterDid).toBeGreaterThan(last);
      expect((await h.post('/api/v2/did/create', { ssid: t.ssid, did })).body.status).toBe('error');
      expect(await lastAuditId(h, t)).toBe(afterDid);
    });

    it('principal.id is the principal\'s userId ("12", "agent-301") whatever the credential, and principalId filters by it', async () => {
      const h = use();
      const t = await createTenant(h);
      const { login } = await import('../helpers/factories.js');
      const { createRole } = await import('../helpers/admin.js');
      const boss = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['group.manage', 'audit.view'] }), password: 'agent-password-3' });
      const agent = await login(h, boss.email, boss.password);
      expect(agent.userId).toBe(`agent-${boss.agentId}`);
      await createGroup(h, agent, { name: 'By agent' });
      const tok = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid, name: 'ci' });
      expect(tok.body.userId).toBe(String(t.accountId));
      const viaToken = await h.post('/api/v2/group/create', { userId: tok.body.userId, token: tok.body.token, name: 'By token' });
      expect(viaToken.body.status).toBe('success');
      const byAgent = (await auditList(h, t, { principalId: `agent-${boss.agentId}` })).data;
      expect(byAgent.map((r) => [r.operation, r.principal.kind, r.principal.id, r.credential])).toEqual([
        ['group/create', 'agent', `agent-${boss.agentId}`, 'session'],
      ]);
      const [byClient] = (await auditList(h, t, { principalId: String(t.accountId), operation: 'group/create' })).data;
      expect(byClient).toMatchObject({ principal: { kind: 'client', id: String(t.accountId) }, credential: 'token' });
      expect((await auditList(h, t, { principalId: `agent-${boss.agentId + 1000}` })).data).toEqual([]);
    });

    it('redacts passwords, tokens, secrets and call_pass: the record shows that they changed, never their values', async () => {
      const h = use();
      const t = await createTenant(h);
      const agent = await createAgent(h, t, { password: 'very-secret-1', call_pass: '55550001' });
      const since = await lastAuditId(h, t);
      expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: agent.agentId, password: 'very-secret-2' })).body.status).toBe('success');
      expect((await h.post('/api/v2/Agent/update', { ssid: t.ssid, agentId: agent.agentId, call_pass: '55550002' })).body.status).toBe('success');
      const tok = await h.post<{ token: string }>('/api/v2/auth/token', { ssid: t.ssid, name: 'ci' });
      const hook = await h.post<{ data: { secret: string } }>('/api/v2/webhook/create', { ssid: t.ssid, url: rx.url });
      const records = await recordsSince(h, t, since);
      expect(records.map((r) => r.operation)).toEqual(['Agent/update', 'Agent/update', 'auth/token', 'webhook/create']);
      expect(records[0]!.changes).toEqual({ password: [R, R] });
      expect(records[1]!.changes).toEqual({ call_pass: [R, R] });
      expect(records[3]!.changes.secret).toEqual([null, R]);
      const text = JSON.stringify(await auditList(h, t));
      for (const secret of ['very-secret-1', 'very-secret-2', '55550001', '55550002', tok.body.token, hook.body.data.secret, 'scrypt$']) {
        expect(text).not.toContain(secret);
      }
    });

    it('audit/list filters, pages newest first, and needs audit.view', async () => {
      const h = use();
      const t = await createTenant(h);
      for (let i = 0; i < 5; i++) await createGroup(h, t, { name: `G${i}` });
      const all = (await auditList(h, t)).data;
      expect(all.map((r) => r.id)).toEqual([...all.map((r) => r.id)].sort((a, b) => b - a));
      const groups = (await auditList(h, t, { operation: 'group/create' })).data;
      expect(groups).toHaveLength(5);
      const page1 = await auditList(h, t, { targetType: 'group', limit: 2 });
      expect(page1.data).toHaveLength(2);
      const page2 = await auditList(h, t, { targetType: 'group', limit: 2, cursor: page1.nextCursor });
      const page3 = await auditList(h, t, { targetType: 'group', limit: 2, cursor: page2.nextCursor });
      expect([...page1.data, ...page2.data, ...page3.data].map((r) => r.id)).toEqual(groups.map((r) => r.id));
      expect(page3.nextCursor).toBeNull();
      const one = groups[2]!;
      expect((await auditList(h, t, { targetId: one.target.id! })).data.map((r) => r.id)).toEqual([one.id]);
      expect((await auditList(h, t, { principalId: t.userId, operation: 'group/create' })).data).toHaveLength(5);
      expect((await auditList(h, t, { from: one.at + 10_000 })).data).toEqual([]);
      expect((await auditList(h, t, { to: one.at - 10_000 })).data).toEqual([]);
      expect((await h.post('/api/v2/audit/list', { ssid: t.ssid, limit: 1001 })).body.code).toBe(1000);
      // Another account sees none of them.
      const other = await createTenant(h);
      expect((await auditList(h, other, { operation: 'group/create' })).data).toEqual([]);
      // An agent needs audit.view.
      const plain = await createAgent(h, t, { role: undefined, password: 'agent-password-1' });
      const { login } = await import('../helpers/factories.js');
      const { createRole } = await import('../helpers/admin.js');
      const noAudit = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['agent.view'] }), password: 'agent-password-2' });
      const s1 = await login(h, plain.email, plain.password);
      const s2 = await login(h, noAudit.email, noAudit.password);
      expect((await h.post('/api/v2/audit/list', { ssid: s1.ssid })).body.status).toBe('success');
      expect((await h.post('/api/v2/audit/list', { ssid: s2.ssid })).body).toMatchObject({ code: 1015, message: expect.stringContaining('audit.view') });
    });
  },
  { config: { webhookAllowPrivate: true, campaignDialer: false } },
);
