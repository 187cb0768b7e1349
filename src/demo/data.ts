import { Rng } from '../simulator/rng.js';

/*
 * The demo tenant's contents (PRODUCT.md §2, CALLCENTER_DEMO=1). Fixed and
 * deterministic, so seeding twice finds the same records and creates nothing new.
 */

export const DEMO_GROUPS = [
  { groupId: 55, name: 'Sales' },
  { groupId: 56, name: 'Support' },
  { groupId: 57, name: 'Billing' },
  { groupId: 58, name: 'VIP desk' },
];

/**
 * The outbound team's group: the demo campaign (src/demo/campaign.ts) dials for its agents alone, and
 * the demo's inbound traffic never reaches it.
 */
export const DEMO_OUTBOUND_GROUP = { groupId: 59, name: 'Outbound' };

/** DIDs in the order of DEMO_GROUPS: the simulator routes the i-th DID to the i-th group. */
export const DEMO_DIDS = [
  { did: '18005550155', name: 'Sales line' },
  { did: '18005550156', name: 'Support line' },
  { did: '18005550157', name: 'Billing line' },
  { did: '18005550158', name: 'VIP line' },
];

export const DEMO_ROLES = [
  {
    key: 'supervisor',
    name: 'Supervisor',
    can_see: 1 as const,
    permissions: [
      'agent.view',
      'agent.live',
      'agent.manage',
      'group.manage',
      'role.view',
      'directory.view',
      'directory.manage',
      'dnc.manage',
      'blacklist.manage',
      'sticky.manage',
      'analysis.view',
      'queue.view',
      'queue.takeover',
    ],
  },
  {
    key: 'lead',
    name: 'Team lead',
    can_see: 0 as const,
    permissions: ['agent.view', 'agent.live', 'directory.view', 'directory.manage', 'sticky.manage', 'analysis.view', 'queue.view', 'queue.takeover'],
  },
  { key: 'agent', name: 'Agent', can_see: 0 as const, permissions: ['agent.view', 'agent.live', 'directory.view', 'queue.view'] },
];

export interface DemoAgent {
  name: string;
  email: string;
  phone: string;
  role: 'supervisor' | 'lead' | 'agent';
  groups: number[];
  /** E-mail of the parent agent (supervisor / team lead), if any. */
  parent?: string;
  destType: 'MOBILE' | 'SIP';
}

const FIRST = [
  'Asha',
  'Ravi',
  'Meera',
  'Arjun',
  'Priya',
  'Vikram',
  'Neha',
  'Rahul',
  'Anita',
  'Sanjay',
  'Kavya',
  'Rohan',
  'Divya',
  'Amit',
  'Pooja',
  'Karan',
  'Sneha',
  'Nikhil',
  'Isha',
  'Manoj',
  'Tara',
  'Dev',
  'Lina',
  'Omar',
  'Sara',
  'John',
  'Maria',
  'Chen',
  'Yuki',
  'Ines',
];
const LAST = [
  'Sharma',
  'Iyer',
  'Nair',
  'Patel',
  'Reddy',
  'Gupta',
  'Singh',
  'Khan',
  'Das',
  'Menon',
  'Rao',
  'Joshi',
  'Mehta',
  'Kapoor',
  'Verma',
  'Bose',
  'Silva',
  'Novak',
  'Weber',
  'Costa',
];
const COMPANIES = ['Acme Traders', 'Blue River Foods', 'Nimbus Software', 'Orbit Logistics', 'Sunrise Retail', ''];

const email = (name: string) => `${name.toLowerCase().replace(/[^a-z]+/g, '.')}@demo.callcenter.test`;

/** 20 agents: 2 supervisors over 4 team leads (one per group) over 14 agents. */
export function demoAgents(): DemoAgent[] {
  const agents: DemoAgent[] = [];
  let n = 0;
  const add = (role: DemoAgent['role'], groups: number[], parent?: string) => {
    const name = `${FIRST[n]} ${LAST[n % LAST.length]}`;
    const a: DemoAgent = {
      name,
      email: email(name),
      phone: `98100${String(10000 + n).padStart(5, '0')}`,
      role,
      groups,
      parent,
      destType: n % 3 === 0 ? 'SIP' : 'MOBILE',
    };
    n++;
    agents.push(a);
    return a;
  };
  const sup1 = add('supervisor', [55, 56]);
  const sup2 = add('supervisor', [57, 58]);
  const leads = DEMO_GROUPS.map((g, i) => add('lead', [g.groupId], (i < 2 ? sup1 : sup2).email));
  const sizes = [5, 4, 3, 2];
  DEMO_GROUPS.forEach((g, i) => {
    for (let k = 0; k < sizes[i]!; k++) add('agent', k === 0 && i < 3 ? [g.groupId, 58] : [g.groupId], leads[i]!.email);
  });
  return agents;
}

/** The outbound team: 8 agents of group 59 only, under the first supervisor (outbound sales), after the 20 inbound ones. */
export function demoOutboundAgents(): DemoAgent[] {
  const supervisor = demoAgents()[0]!.email;
  return Array.from({ length: 8 }, (_, k) => {
    // The names continue the inbound ones' sequence, so no e-mail repeats.
    const n = 20 + k;
    const name = `${FIRST[n]} ${LAST[n % LAST.length]}`;
    return {
      name,
      email: email(name),
      phone: `98100${String(10000 + n).padStart(5, '0')}`,
      role: 'agent' as const,
      groups: [DEMO_OUTBOUND_GROUP.groupId],
      parent: supervisor,
      destType: 'SIP' as const,
    };
  });
}

export interface DemoContact {
  contact: string;
  contactinfo: Record<string, string>;
  other: Record<string, string | number | boolean>;
}

/** `count` contacts with names, e-mails and companies; a few flagged VIP, three blacklisted by their record. */
export function demoContacts(count = 300): DemoContact[] {
  const rng = new Rng(55);
  return Array.from({ length: count }, (_, i) => {
    const name = `${rng.pick(FIRST)} ${rng.pick(LAST)}`;
    const company = rng.pick(COMPANIES);
    return {
      contact: demoNumber(i),
      contactinfo: { name, email: email(`${name} ${i}`), ...(company ? { company } : {}) },
      other: { vip: i % 25 === 0, source: 1 + (i % 3), ...(i >= count - 3 ? { blacklist: true } : {}) },
    };
  });
}

/** The i-th demo contact number (12 digits, unique per i). */
export function demoNumber(i: number): string {
  return `9198700${String(i).padStart(5, '0')}`;
}

/**
 * The i-th number of the demo campaign's leads: 91 98 9 and seven digits, a mobile number's shape (valid for the
 * list's 6-to-15-digit rule), apart from the directory's 91987 00… contacts. Ten million of them.
 */
export function demoLeadNumber(i: number): string {
  return `91989${String(i % 10_000_000).padStart(7, '0')}`;
}

/** Directory rules on some contacts, so route/decide has something to say. */
export function demoRules(agents: DemoAgent[]) {
  const inGroup = (g: number) => agents.filter((a) => a.role === 'agent' && a.groups.includes(g));
  return {
    /** Sticky assignments: [contact index, agent e-mail, scope, cli?, groupid?]. */
    sticky: [
      ...[0, 1, 2, 3, 4].map((i) => ({ index: i, agent: inGroup(55)[i % inGroup(55).length]!.email, type: 'all' as const })),
      ...[5, 6, 7].map((i) => ({ index: i, agent: inGroup(56)[i % inGroup(56).length]!.email, type: 'cli' as const, cli: DEMO_DIDS[1]!.did })),
      ...[8, 9].map((i) => ({ index: i, agent: inGroup(57)[i % inGroup(57).length]!.email, type: 'cli_group' as const, cli: DEMO_DIDS[2]!.did, groupid: 57 })),
    ],
    /** DNC: permanently listed, and listed for 30 days. */
    dncPermanent: [20, 21, 22, 23, 24, 25, 26, 27],
    dncTemporary: [28, 29, 30, 31],
    /** Blacklisted on the Sales line only. */
    blacklistSales: [40, 41, 42, 43, 44],
  };
}
