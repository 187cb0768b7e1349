import { beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/auth/permissions.js';
import { createAgent, createRole } from '../helpers/admin.js';
import { createTenant, login, type Session } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { collectOperations } from './support/openapi.js';

/**
 * Every operation refuses a principal without its permission (1015 naming
 * it), following the table of PRODUCT.md §4 — written out here, not read from
 * the code, so the code is checked against the contract. Switch credentials
 * reach only events/ingest, route/decide, switch/config, switch/state and the stream.
 */

const TABLE: Record<string, string> = {
  'agent/list': 'agent.view',
  'group/list': 'agent.view',
  'agent/live': 'agent.live',
  'agent/create': 'agent.manage',
  'agent/update': 'agent.manage',
  'agent/delete': 'agent.manage',
  'agent/setcad': 'agent.manage',
  'agent/unsetcad': 'agent.manage',
  'agent/updateagentgroupmapping': 'group.manage',
  'group/create': 'group.manage',
  'group/update': 'group.manage',
  'group/delete': 'group.manage',
  'role/list': 'role.view',
  'role/create': 'role.manage',
  'role/update': 'role.manage',
  'role/delete': 'role.manage',
  'directory/getinfo': 'directory.view',
  'directory/getfields': 'directory.view',
  'directory/search': 'directory.view',
  'directory/getdnc': 'directory.view',
  'directory/getsticky': 'directory.view',
  'directory/create': 'directory.manage',
  'directory/update': 'directory.manage',
  'directory/delete': 'directory.manage',
  'directory/setdnc': 'dnc.manage',
  'directory/setsticky': 'sticky.manage',
  'directory/removesticky': 'sticky.manage',
  'directory/blacklist': 'blacklist.manage',
  'did/create': 'number.manage',
  'did/delete': 'number.manage',
  'did/list': 'number.manage',
  'analysis/hits': 'analysis.view',
  'analysis/call': 'analysis.view',
  'callreport/list': 'analysis.view',
  'callreport/detail': 'analysis.view',
  'queue/count': 'queue.view',
  'queue/list': 'queue.view',
  'queue/calltakeover': 'queue.takeover',
  'webhook/create': 'webhook.manage',
  'webhook/list': 'webhook.manage',
  'webhook/update': 'webhook.manage',
  'webhook/delete': 'webhook.manage',
  'webhook/verify': 'webhook.manage',
  'webhook/deliveries': 'webhook.manage',
  'webhook/redeliver': 'webhook.manage',
  'call/originate': 'call.originate',
  'privacy/erase': 'privacy.manage',
  'privacy/export': 'privacy.manage',
  'contactlist/create': 'campaign.manage',
  'contactlist/list': 'campaign.view',
  'contactlist/contacts': 'campaign.view',
  'contactlist/delete': 'campaign.manage',
  'contactlist/import': 'campaign.manage',
  'contactlist/importcsv': 'campaign.manage',
  'staffing/erlang': 'analysis.view',
  'staffing/plan': 'analysis.view',
  'addcontactapi/addcontact': 'campaign.manage',
  'addcontactapi/deletecontact': 'campaign.manage',
  'campaign/create': 'campaign.manage',
  'campaign/update': 'campaign.manage',
  'campaign/delete': 'campaign.manage',
  'campaign/start': 'campaign.manage',
  'campaign/pause': 'campaign.manage',
  'campaign/stop': 'campaign.manage',
  'campaign/list': 'campaign.view',
  'campaign/status': 'campaign.view',
};
/** Operations for clients (and switches) only: an agent, whatever its role, gets 1015. */
const NOT_FOR_AGENTS = new Set([
  'account/getsettings',
  'account/updatesettings',
  'account/create',
  'events/ingest',
  'route/decide',
  'switch/config',
  'switch/state',
]);
const FOR_SWITCH = new Set(['events/ingest', 'route/decide', 'switch/config', 'switch/state']);

const OPERATIONS = await collectOperations();

forEachDatabase('permissions', (use) => {
  let client: Session;
  let emptyAgent: Session;
  let switchCreds: { userId: string; token: string };
  const allBut = new Map<string, Session>();

  async function agentWith(h: Harness, permissions: string[]): Promise<Session> {
    const role = await createRole(h, client, { permissions });
    const agent = await createAgent(h, client, { role });
    return login(h, agent.email, agent.password);
  }

  beforeAll(async () => {
    const h = use();
    client = await createTenant(h);
    emptyAgent = await agentWith(h, []);
    for (const p of new Set(Object.values(TABLE)))
      allBut.set(
        p,
        await agentWith(
          h,
          PERMISSIONS.filter((x) => x !== p),
        ),
      );
    const sw = await h.post('/api/v2/auth/token', { ssid: client.ssid, kind: 'switch' });
    switchCreds = { userId: sw.body.userId as string, token: sw.body.token as string };
  }, 120_000);

  /** The operation asked with these credentials, where it takes them. */
  const ask = (h: Harness, op: (typeof OPERATIONS)[number], creds: Record<string, string | number>) =>
    op.credentialsIn === 'query'
      ? h.post(`${op.path}?${new URLSearchParams(Object.entries(creds).map(([k, v]) => [k, String(v)])).toString()}`, {})
      : h.post(op.path, creds);

  for (const op of OPERATIONS) {
    const key = op.id.toLowerCase();
    const needed = TABLE[key];
    if (!op.auth) continue;
    describe(op.id, () => {
      if (needed) {
        it(`declares and enforces ${needed}: an agent with an empty role and one with every other permission get 1015`, async () => {
          const h = use();
          expect(op.permission).toBe(needed);
          for (const s of [emptyAgent, allBut.get(needed)!]) {
            const res = await ask(h, op, { ssid: s.ssid });
            expect(res.body.code, JSON.stringify(res.body)).toBe(1015);
            expect(res.body.message).toContain(needed);
          }
        });
      }
      if (NOT_FOR_AGENTS.has(key)) {
        it('refuses an agent holding every permission with 1015', async () => {
          const h = use();
          const all = await agentWith(h, [...PERMISSIONS]);
          const res = await ask(h, op, { ssid: all.ssid });
          expect(res.body.code, JSON.stringify(res.body)).toBe(1015);
        });
      }
      it(FOR_SWITCH.has(key) ? 'admits switch credentials' : 'refuses switch credentials with 1015', async () => {
        const h = use();
        const res = await ask(h, op, switchCreds);
        if (FOR_SWITCH.has(key)) expect(res.body.code, JSON.stringify(res.body)).not.toBe(1015);
        else expect(res.body.code, JSON.stringify(res.body)).toBe(1015);
      });
      it('refuses a missing, expired or unknown session with 1014', async () => {
        const h = use();
        expect((await ask(h, op, { x: 1 })).body.code).toBe(1014);
        expect((await ask(h, op, { ssid: 'f'.repeat(64) })).body.code).toBe(1014);
      });
    });
  }

  it('a role change takes effect at the next request (no stale permission cache)', async () => {
    const h = use();
    const role = await createRole(h, client, { permissions: ['agent.view'] });
    const agent = await createAgent(h, client, { role });
    const s = await login(h, agent.email, agent.password);
    expect((await h.post('/api/v2/Agent/list', { ssid: s.ssid })).body.status).toBe('success');
    const upd = await h.post('/api/v2/role/update', { ssid: client.ssid, roleId: role, permissions: [] });
    expect(upd.body.status, JSON.stringify(upd.body)).toBe('success');
    expect((await h.post('/api/v2/Agent/list', { ssid: s.ssid })).body.code).toBe(1015);
  });

  // Last: it moves the clock past every session's expiry.
  it('expires an agent session after SESSION_TTL_SECONDS without use (clock, no sleeping)', async () => {
    const h = use();
    const s = await agentWith(h, ['agent.view']);
    expect((await h.post('/api/v2/Agent/list', { ssid: s.ssid })).body.status).toBe('success');
    h.clock.advance(h.ctx.config.sessionTtlSeconds * 1000 + 1000);
    expect((await h.post('/api/v2/Agent/list', { ssid: s.ssid })).body.code).toBe(1014);
  });
});
