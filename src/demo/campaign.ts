import type { ApiBody, Transport } from '../simulator/transport.js';
import { DEMO_DIDS, DEMO_OUTBOUND_GROUP, demoLeadNumber } from './data.js';

/*
 * The demo's outbound side (PRODUCT.md §13, docs/simulator.md): a list of
 * leads and a predictive campaign dialling them for the outbound team
 * (group 59), kept supplied with new leads while the demo runs.
 */

export const DEMO_LIST_NAME = 'Demo leads';
export const DEMO_CAMPAIGN_NAME = 'Demo renewals';
/** Leads in the list when it is created: hours of dialling for the 8 agents before the feed adds any. */
export const DEMO_LEADS = 3000;

/**
 * The campaign's settings: predictive at the default 3 % limit, answering
 * machines detected and hung up (§13's world, which the demo's switch
 * plays), the Sales line as caller id, and calling hours opened wide — every
 * day, 00:00 to 23:59 in the account's zone (the one closed minute is the
 * setting's own: its end is exclusive and must differ from its start), so a
 * demo started at any hour shows a campaign at work. A real campaign sets
 * the strictest hours that apply to the people it calls (docs/campaigns.md).
 */
export const DEMO_CAMPAIGN_SETTINGS = {
  mode: 'predictive',
  groupId: DEMO_OUTBOUND_GROUP.groupId,
  did: DEMO_DIDS[0]!.did,
  amd: true,
  machineAction: 'hangup',
  callingHours: { start: '00:00', end: '23:59', weekDays: [1, 2, 3, 4, 5, 6, 7] },
} as const;

export interface DemoCampaignReport {
  clId: number;
  campaignId: number;
  created: { lists: number; leads: number; campaigns: number };
}

/**
 * The list and the campaign, through the API (idempotent): the list named
 * DEMO_LIST_NAME (created with DEMO_LEADS leads), and the campaign named
 * DEMO_CAMPAIGN_NAME that is not stopped or completed (a draft is created
 * when there is none: one a user stopped stays in the reports, and the next
 * start dials with a new one). The campaign is not started here: the demo
 * starts it once its switch reads the stream (startDemoOutbound).
 */
export async function seedDemoCampaign(api: Transport): Promise<DemoCampaignReport> {
  const created = { lists: 0, leads: 0, campaigns: 0 };
  const lists = (await must(api, 'contactList/list', {})).data as Array<{ clId: number; name: string; contacts: number }>;
  let list = lists.find((l) => l.name === DEMO_LIST_NAME);
  if (!list) {
    const clId = ((await must(api, 'contactList/create', { name: DEMO_LIST_NAME })).data as { clId: number }).clId;
    created.lists++;
    list = { clId, name: DEMO_LIST_NAME, contacts: 0 };
  }
  // A list cut short by an interrupted seeding gets the rest (a number already in it is updated, not added twice).
  if (list.contacts < DEMO_LEADS) created.leads += await importLeads(api, list.clId, list.contacts, DEMO_LEADS - list.contacts);

  const campaigns = (await must(api, 'campaign/list', {})).data as Array<{ campaignId: number; name: string; state: string }>;
  let campaign = campaigns.find((c) => c.name === DEMO_CAMPAIGN_NAME && c.state !== 'stopped' && c.state !== 'completed');
  if (!campaign) {
    const res = await must(api, 'campaign/create', { name: DEMO_CAMPAIGN_NAME, clIds: [list.clId], ...DEMO_CAMPAIGN_SETTINGS });
    created.campaigns++;
    campaign = { campaignId: (res.data as { campaignId: number }).campaignId, name: DEMO_CAMPAIGN_NAME, state: 'draft' };
  }
  return { clId: list.clId, campaignId: campaign.campaignId, created };
}

/** Imports leads `from` … `from + count − 1` (10,000 a request, the import's limit); answers how many were added. */
async function importLeads(api: Transport, clId: number, from: number, count: number): Promise<number> {
  let added = 0;
  for (let i = 0; i < count; i += 10_000) {
    const n = Math.min(10_000, count - i);
    const records = Array.from({ length: n }, (_, k) => ({ number: demoLeadNumber(from + i + k), name: `Lead ${from + i + k + 1}` }));
    added += ((await must(api, 'contactList/import', { clId, records })).data as { added: number }).added;
  }
  return added;
}

/** When fewer leads than this are left to dial, the feed adds a batch. */
export const FEED_LOW = 1000;
export const FEED_BATCH = 1000;

/**
 * The campaign never runs dry while the demo runs: as a CRM feeding a list
 * would, it adds FEED_BATCH new leads whenever fewer than FEED_LOW are left
 * to dial (`campaign/status` `contacts.dialable`: due now or not read in
 * yet). New numbers rather than recycled ones: a lead that is done is never
 * dialled again, so no number is called sooner than the campaign's own
 * retry delays allow (an abandoned one not within 72 hours), as the law
 * asks of a real campaign. The list grows by the leads dialled, a few
 * thousand a day for 8 agents,
 * alongside the call history the demo writes anyway; the numbers last for
 * years (demoLeadNumber).
 */
export class LeadFeed {
  private next: number | undefined;

  constructor(
    private readonly api: Transport,
    private readonly clId: number,
    private readonly campaignId: number,
    private readonly opts: { low: number; batch: number } = { low: FEED_LOW, batch: FEED_BATCH },
  ) {}

  /** Adds a batch when the campaign is short of leads; answers how many were added. */
  async topUp(): Promise<number> {
    const status = (await must(this.api, 'campaign/status', { campaignId: this.campaignId })).data as { contacts: { dialable: number } };
    if (status.contacts.dialable >= this.opts.low) return 0;
    // The next number follows the list's count (nothing is deleted from it); in memory after that, so a list
    // someone trimmed by hand still gets new numbers rather than updates of the ones it holds.
    if (this.next === undefined) {
      const lists = (await must(this.api, 'contactList/list', {})).data as Array<{ clId: number; contacts: number }>;
      this.next = lists.find((l) => l.clId === this.clId)?.contacts ?? 0;
    }
    const added = await importLeads(this.api, this.clId, this.next, this.opts.batch);
    this.next += this.opts.batch;
    return added;
  }
}

export async function must(api: Transport, op: string, body: Record<string, unknown>): Promise<ApiBody> {
  const res = await api.post(op, body);
  if (res.status !== 'success') throw new Error(`demo: ${op} answered ${res.code} ${res.message ?? ''}`);
  return res;
}
