import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { createAgent, createDid, createGroup, createRole, uniquePhone } from '../helpers/admin.js';
import { createTenant, type Session } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { validValue } from './support/arbitraries.js';
import { fingerprint } from './support/checks.js';
import { collectOperations, expectRegistered, idKindOf, ownFields, type IdKind, type JsonSchema } from './support/openapi.js';

/**
 * Nothing leaks between tenants (PRODUCT.md §4 "Isolation"). Tenant A owns
 * one of everything (group, role, agent, DID, contact with DNC, blacklist and
 * sticky, API token, a call); tenant B calls every operation of the OpenAPI
 * document with A's ids in each id field, and again with ids nobody has. The
 * two answers must be the same (up to the id itself), no answer to B may
 * carry anything of A's, and A's rows must be untouched at the end.
 */

const OPERATIONS = await collectOperations();
const MARK = 'ZETAMARK';

type Kind = IdKind;
const SAME_AS_OWN = new Set(['did/create did']);
const kindOf = idKindOf;

/** The id in the shape the field takes: a scalar, an array of one, or a map keyed by it. */
function shaped(schema: JsonSchema, value: string | number): unknown {
  const types = (schema.anyOf ?? [schema]).map((s) => s.type);
  if (types.includes('string') || types.includes('number') || types.includes('integer')) return value;
  if (types.includes('array')) return [value];
  if (types.includes('object')) return { [String(value)]: { receive_call: 'Y' } };
  return value;
}

/** Normalises an answer so that only what a caller could learn remains: the ids it sent become <id>. */
function normal(raw: unknown, ids: string | number | Array<string | number>): string {
  const list = (Array.isArray(ids) ? ids : [ids]).map(String);
  const bounded = list.map((id) => new RegExp(`(?<![0-9A-Za-z.+-])${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z.])`, 'g'));
  return JSON.stringify(raw, (key, v: unknown) => {
    if (typeof v === 'string') return bounded.reduce((text, re) => text.replace(re, '<id>'), v);
    if (typeof v === 'number' && kindOf(key) && list.includes(String(v))) return '<id>';
    return v;
  });
}

forEachDatabase('tenant isolation', (use) => {
  let a: Session & { accountId: number };
  let b: Session & { accountId: number };
  const foreign = {} as Record<Kind, string | number>;
  // A fresh id nobody has for every probe: an earlier probe may have created the previous one in B.
  let seq = 0;
  const missing = (kind: Kind): string | number => {
    seq++;
    const n = String(seq).padStart(4, '0');
    return {
      agent: 987_650_000 + seq,
      group: 8000 + seq,
      role: 987_660_000 + seq,
      did: `8099999${n}`,
      contact: `9190000${n}`,
      call: `call-nobody-${n}`,
      token: `${'f'.repeat(60)}${n}`,
    }[kind];
  };
  let bOwnDid: string;
  let aBefore: Record<string, string>;
  const answersToB: string[] = [];

  async function post(h: Harness, path: string, body: Record<string, unknown>) {
    const res = await h.post(path, body);
    answersToB.push(JSON.stringify(res.body));
    return res;
  }

  beforeAll(async () => {
    const h = use();
    a = await createTenant(h);
    b = await createTenant(h);
    // Burn low ids: A's role and agent ids must have several digits, or normalising the id out
    // of a message would also hit unrelated numbers ("from 1 to 100").
    const burner = await createTenant(h);
    const burnRole = await createRole(h, burner);
    for (let i = 0; i < 11; i++) await createRole(h, burner);
    for (let i = 0; i < 11; i++) await createAgent(h, burner, { role: burnRole });
    foreign.group = await createGroup(h, a, { groupId: 4321, name: `${MARK} group` });
    foreign.role = await createRole(h, a, { name: `${MARK} role` });
    const agent = await createAgent(h, a, {
      role: foreign.role,
      group: foreign.group as number,
      name: `${MARK} agent`,
      email: `${MARK.toLowerCase()}-${Date.now()}@example.com`,
    });
    foreign.agent = agent.agentId;
    foreign.did = await createDid(h, a);
    foreign.contact = uniquePhone();
    const ok = async (path: string, body: Record<string, unknown>) => {
      const res = await h.post(path, { ssid: a.ssid, ...body });
      expect(res.body.status, `${path} ${JSON.stringify(res.body)}`).toBe('success');
      return res.body;
    };
    await ok('/api/v2/Directory/create', { contact: foreign.contact, contactinfo: { name: `${MARK} contact`, email: `${MARK.toLowerCase()}@example.com` } });
    await ok('/api/v2/Directory/setDnc', { contact: foreign.contact, dnc: -1 });
    await ok('/api/v2/Directory/Blacklist', { contact: foreign.contact, DID: [foreign.did] });
    await ok('/api/v2/Directory/setSticky', { contact: foreign.contact, agentId: foreign.agent, type: 'all', expiry: -1 });
    foreign.token = (await ok('/api/v2/auth/token', { name: MARK })).token as string;
    // Ids B sends come back in messages, so they must not carry the marker.
    foreign.call = `call-a-${Date.now()}`;
    if (OPERATIONS.some((o) => o.id === 'events/ingest')) {
      const ts = Math.floor(h.clock.now() / 1000);
      await ok('/api/v2/events/ingest', {
        events: [
          {
            eventId: `${MARK}-1`,
            type: 'call.queued',
            ts,
            callId: foreign.call,
            groupId: foreign.group,
            did: foreign.did,
            caller: foreign.contact,
            direction: 'inbound',
          },
        ],
      });
    }
    aBefore = await fingerprint(h.db, a.accountId);
  }, 120_000);

  for (const op of OPERATIONS.filter((o) => o.auth)) {
    const idFields = ownFields(op).filter(([f]) => kindOf(f));
    if (!idFields.length) continue;
    it(`${op.id}: another tenant's ${idFields.map(([f]) => f).join(', ')} answer like ids nobody has`, async () => {
      const h = use();
      const fields = Object.fromEntries(ownFields(op));
      const shape: JsonSchema = { type: 'object', properties: fields, required: (op.body.required ?? []).filter((k) => k in fields) };
      // A few plausible fillers for the other fields; the id field is then set to A's id or a missing one.
      const fillers = fc.sample(validValue(shape) as fc.Arbitrary<Record<string, unknown>>, { numRuns: 4, seed: 7 });
      fillers.unshift({});
      // A new attacker per operation: probes of one operation must not see what another created.
      const attacker = await createTenant(h);
      bOwnDid = await createDid(h, attacker);
      for (const [field, schema] of idFields) {
        const kind = kindOf(field)!;
        for (const filler of fillers) {
          const base = { ...filler, ssid: attacker.ssid };
          const viaForeign = await post(h, op.path, { ...base, [field]: shaped(schema, foreign[kind]) });
          // DIDs are unique across the service (a number routes to one account): taking A's must
          // answer exactly like taking one of B's own, which tells B nothing about who holds it.
          const missingId = SAME_AS_OWN.has(`${op.id} ${field}`) ? bOwnDid : missing(kind);
          const viaMissing = await post(h, op.path, { ...base, [field]: shaped(schema, missingId) });
          expect(normal(viaForeign.body, foreign[kind]), `${op.id} ${field} (${JSON.stringify(filler)})`).toBe(normal(viaMissing.body, missingId));
          // Success made the id the attacker's own (e.g. group/create 4321): later probes would compare other things.
          if (viaForeign.body.status === 'success') break;
        }
      }
    });
  }

  // Ids inside nested bodies, which the per-field probes above do not reach.
  it('the operations probed below by name are registered', () => {
    expectRegistered(OPERATIONS, ['events/ingest', 'analysis/hits']);
  });

  it("events naming A's agent, call, group or DID are refused like unknown ones", async () => {
    const h = use();
    const attacker = await createTenant(h);
    await createGroup(h, attacker, { groupId: 9001 });
    const ts = Math.floor(h.clock.now() / 1000);
    const probes: Array<[string, (v: Record<Kind, string | number>) => Record<string, unknown>]> = [
      ['agent.login', (v) => ({ type: 'agent.login', agentId: v.agent, loginType: 'Web' })],
      ['call.ringing', (v) => ({ type: 'call.ringing', callId: v.call, agentId: v.agent })],
      ['call.ended', (v) => ({ type: 'call.ended', callId: v.call, reason: 'completed' })],
      ['call.queued group', (v) => ({ type: 'call.queued', callId: `q-${String(v.group)}`, groupId: v.group, caller: '919811100000' })],
    ];
    for (const [name, make] of probes) {
      const answer = async (v: Record<Kind, string | number>, n: string) => {
        const res = await post(h, '/api/v2/events/ingest', { ssid: attacker.ssid, events: [{ eventId: `${name}-${n}`, ts, ...make(v) }] });
        return res.body;
      };
      const m: Record<Kind, string | number> = { ...foreign };
      for (const k of Object.keys(m) as Kind[]) m[k] = missing(k);
      const viaForeign = await answer(foreign, 'f');
      const viaMissing = await answer(m, 'm');
      expect(normal(viaForeign, Object.values(foreign)), name).toBe(normal(viaMissing, Object.values(m)));
      expect((viaForeign.data as { accepted: number }).accepted, `${name} accepted for another tenant's id`).toBe(0);
    }
  });

  it("analysis filtered by A's agent, group or DID answers like an unknown one", async () => {
    const h = use();
    const attacker = await createTenant(h);
    for (const [key, kind] of [
      ['agentId', 'agent'],
      ['groupId', 'group'],
      ['did', 'did'],
    ] as Array<[string, Kind]>) {
      const ask = (v: string | number) =>
        post(h, '/api/v2/analysis/hits', { ssid: attacker.ssid, filter: [{ key, condi: 'eq', val: v }], breakDown: key, disPlay: 'total' });
      const missingId = missing(kind);
      const viaForeign = await ask(foreign[kind]);
      const viaMissing = await ask(missingId);
      expect(normal(viaForeign.body, foreign[kind]), key).toBe(normal(viaMissing.body, missingId));
    }
  });

  it("B's token does not work with A's user id, nor A's token with B's user id", async () => {
    const h = use();
    const bToken = (await post(h, '/api/v2/auth/token', { ssid: b.ssid })).body.token as string;
    expect((await post(h, '/api/v2/account/getSettings', { userId: a.userId, token: bToken })).body.code).toBe(1014);
    expect((await post(h, '/api/v2/account/getSettings', { userId: b.userId, token: foreign.token })).body.code).toBe(1014);
    expect((await post(h, '/api/v2/auth/revokeToken', { ssid: b.ssid, revoke: foreign.token })).body.code).toBe(1012);
  });

  it("no answer to B carried any of A's records, and A's rows are untouched", async () => {
    const h = use();
    expect(answersToB.length).toBeGreaterThan(OPERATIONS.length);
    const leaks = answersToB.filter((t) => t.includes(MARK) || t.toLowerCase().includes(MARK.toLowerCase()));
    expect(leaks).toEqual([]);
    expect(await fingerprint(h.db, a.accountId)).toEqual(aBefore);
    // A still sees its own records: the probes above were not blind.
    const mine = await h.post('/api/v2/Directory/getInfo', { ssid: a.ssid, cn: foreign.contact });
    expect(JSON.stringify(mine.body)).toContain(MARK);
  });
});
