import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock.js';
import { AppError } from '../errors/catalogue.js';
import type { AccountService } from '../modules/account/account.service.js';
import { injectTransport, type ApiBody, type Transport } from '../simulator/transport.js';
import { seedDemoCampaign } from './campaign.js';
import { DEMO_DIDS, DEMO_GROUPS, DEMO_OUTBOUND_GROUP, DEMO_ROLES, demoAgents, demoContacts, demoNumber, demoOutboundAgents, demoRules } from './data.js';

export const DEMO_USERNAME_DEFAULT = 'demo';
export const DEMO_PASSWORD_DEFAULT = 'demo-password';

export interface DemoCredentials {
  username: string;
  password: string;
}

/** CALLCENTER_DEMO_USERNAME / CALLCENTER_DEMO_PASSWORD, else `demo` / `demo-password`. */
export function demoCredentials(env: Record<string, string | undefined> = process.env): DemoCredentials {
  return {
    username: env.CALLCENTER_DEMO_USERNAME?.trim() || DEMO_USERNAME_DEFAULT,
    password: env.CALLCENTER_DEMO_PASSWORD || DEMO_PASSWORD_DEFAULT,
  };
}

export interface SeedReport {
  accountId: number;
  createdAccount: boolean;
  created: { groups: number; dids: number; roles: number; agents: number; contacts: number; lists: number; leads: number; campaigns: number };
  /** Records that could not be created (e.g. a DID another tenant owns). */
  skipped: string[];
  ssid: string;
  /** The outbound campaign and its list of leads (src/demo/campaign.ts). */
  campaign: { clId: number; campaignId: number };
}

/** Codes that mean "it is already there": seeding again is a no-op. */
const EXISTS = new Set([1504, 1505, 1512, 1516]);

/**
 * Seeds the demo tenant through the API in process (the same validation and
 * rules as any client): groups incl. 55, roles, 20 agents, DIDs, 300
 * contacts and some sticky / DNC / blacklist rules; the outbound team (group
 * 59, 8 more agents), a list of 3,000 leads and a predictive campaign (a
 * draft: startDemo starts it). Idempotent: what exists is found and kept, so
 * a second start duplicates nothing.
 */
export async function seedDemo(app: FastifyInstance, accounts: AccountService, clock: Clock, creds: DemoCredentials = demoCredentials()): Promise<SeedReport> {
  let createdAccount = false;
  try {
    await accounts.create({ username: creds.username, password: creds.password, name: 'Demo call centre' });
    createdAccount = true;
  } catch (err) {
    if (!(err instanceof AppError && err.code === 1512)) throw err;
  }
  const login = await app.inject({ method: 'POST', url: '/api/v2/auth/login', payload: { username: creds.username, password: creds.password } });
  const session = login.json() as ApiBody;
  if (session.status !== 'success')
    throw new Error(`demo account ${creds.username}: login failed (${session.message ?? session.code}); set CALLCENTER_DEMO_PASSWORD`);
  const ssid = session.ssid as string;
  const api = injectTransport(app, { ssid });
  const report: SeedReport = {
    accountId: 0,
    createdAccount,
    created: { groups: 0, dids: 0, roles: 0, agents: 0, contacts: 0, lists: 0, leads: 0, campaigns: 0 },
    skipped: [],
    ssid,
    campaign: { clId: 0, campaignId: 0 },
  };
  report.accountId = Number(String(session.userId));

  const create = async (op: string, body: Record<string, unknown>, what: keyof SeedReport['created'] | null, label: string) => {
    const res = await api.post(op, body);
    if (res.status === 'success') {
      if (what) report.created[what]++;
      return res;
    }
    if (!EXISTS.has(res.code)) report.skipped.push(`${label}: ${res.code} ${res.message ?? ''}`);
    return null;
  };

  for (const g of [...DEMO_GROUPS, DEMO_OUTBOUND_GROUP]) await create('group/create', { groupId: g.groupId, name: g.name }, 'groups', `group ${g.groupId}`);
  for (const d of DEMO_DIDS) {
    const res = await create('did/create', d, 'dids', `did ${d.did}`);
    if (!res) {
      // 1516 also means "another tenant owns it": only then is it really missing.
      const owned = ((await must(api, 'did/list', {})).data as { did: string }[]).some((x) => x.did === d.did);
      if (!owned) report.skipped.push(`did ${d.did}: owned by another account`);
    }
  }

  const roleIds = new Map<string, number>();
  const listRoles = async () => (await must(api, 'role/list', { limit: 100 })).response as { name: string; unique_id: number }[];
  let roles = await listRoles();
  for (const r of DEMO_ROLES) {
    if (!roles.some((x) => x.name === r.name))
      await create('role/create', { name: r.name, permissions: r.permissions, can_see: r.can_see }, 'roles', `role ${r.name}`);
  }
  roles = await listRoles();
  for (const r of DEMO_ROLES) roleIds.set(r.key, roles.find((x) => x.name === r.name)!.unique_id);

  const agents = [...demoAgents(), ...demoOutboundAgents()];
  const agentIds = new Map<string, number>();
  const listAgents = async () => {
    for (const a of (await must(api, 'Agent/list', { quick: true })).response as { unique_id: number; email: string }[]) agentIds.set(a.email, a.unique_id);
  };
  await listAgents();
  for (const a of agents) {
    if (agentIds.has(a.email)) continue;
    const res = await create(
      'Agent/create',
      {
        name: a.name,
        email: a.email,
        password: creds.password,
        phone: a.phone,
        call_pass: '12345678',
        dest_type: a.destType,
        dest_value: a.destType === 'SIP' ? `sip:${a.email.split('@')[0]}@pbx.demo.callcenter.test` : a.phone,
        role: roleIds.get(a.role),
        ...(a.parent && agentIds.has(a.parent) ? { parent: agentIds.get(a.parent) } : {}),
        group: Object.fromEntries(a.groups.map((g) => [String(g), { receive_call: 'Y' }])),
      },
      'agents',
      `agent ${a.email}`,
    );
    if (res) agentIds.set(a.email, (res.data as { agentId: number }).agentId);
  }

  const contacts = demoContacts();
  // The last contact exists only when an earlier seeding got through them all.
  const lastInfo = await api.post('Directory/getInfo', { cn: contacts[contacts.length - 1]!.contact });
  if (lastInfo.status !== 'success') {
    for (const c of contacts) await create('Directory/create', { ...c }, 'contacts', `contact ${c.contact}`);
  }

  const rules = demoRules(agents);
  const nowSec = Math.floor(clock.now() / 1000);
  for (const s of rules.sticky) {
    const agentId = agentIds.get(s.agent);
    if (agentId === undefined) continue;
    await create(
      'Directory/setSticky',
      {
        contact: demoNumber(s.index),
        agentId,
        type: s.type,
        expiry: -1,
        ...('cli' in s ? { cli: s.cli } : {}),
        ...('groupid' in s ? { groupid: s.groupid } : {}),
      },
      null,
      `sticky ${s.index}`,
    );
  }
  for (const i of rules.dncPermanent) await create('Directory/setDnc', { contact: demoNumber(i), dnc: -1 }, null, `dnc ${i}`);
  for (const i of rules.dncTemporary) await create('Directory/setDnc', { contact: demoNumber(i), dnc: nowSec + 30 * 86400 }, null, `dnc ${i}`);
  for (const i of rules.blacklistSales) await create('Directory/Blacklist', { contact: demoNumber(i), DID: [DEMO_DIDS[0]!.did] }, null, `blacklist ${i}`);

  const campaign = await seedDemoCampaign(api);
  Object.assign(report.created, campaign.created);
  report.campaign = { clId: campaign.clId, campaignId: campaign.campaignId };
  return report;
}

async function must(api: Transport, op: string, body: Record<string, unknown>): Promise<ApiBody> {
  const res = await api.post(op, body);
  if (res.status !== 'success') throw new Error(`demo seeding: ${op} answered ${res.code} ${res.message ?? ''}`);
  return res;
}
