import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import { CAMPAIGN_CALL_PREFIX } from '../modules/campaign/outcomes.js';
import { prepareOutbound, type OutboundSession } from '../simulator/outbound-session.js';
import { resetLiveState } from '../simulator/runner.js';
import { discoverTopology, type Topology } from '../simulator/topology.js';
import type { Transport } from '../simulator/transport.js';
import { LeadFeed, must, type DemoCampaignReport } from './campaign.js';
import { DEMO_OUTBOUND_GROUP } from './data.js';

/** How often the lead feed looks at the campaign (real time). */
const FEED_EVERY_MS = 60_000;

/**
 * The demo tenant's agents split in two: the inbound simulator's (every
 * group but the outbound team's, each DID routed as discoverTopology
 * routes it) and the outbound simulator's (the outbound team alone), so
 * neither drives the other's agents.
 */
export async function demoTopologies(api: Transport): Promise<{ inbound: Topology; outbound: Topology }> {
  const all = await discoverTopology(api);
  const out = DEMO_OUTBOUND_GROUP.groupId;
  return {
    inbound: { ...all, groups: all.groups.filter((g) => g.groupId !== out), routes: all.routes.filter((r) => r.groupId !== out) },
    outbound: { routes: all.routes.filter((r) => r.groupId === out), groups: all.groups.filter((g) => g.groupId === out), callers: [] },
  };
}

export interface DemoOutbound {
  session: OutboundSession;
  feed: LeadFeed;
  campaignId: number;
  /** Pauses the campaign (no switch answers its dials once the demo is gone), ends the calls, logs the team out. */
  stop(): Promise<void>;
}

/**
 * The demo's outbound side, once the server listens (the switch reads the
 * stream over HTTP, as a real one does): calls a killed run left open are
 * ended, `simulate --outbound`'s model (§13's world, the defaults) logs the
 * team in and reads the stream, and only then is the campaign started, so
 * no dial is pushed before a switch reads it. The lead feed looks every
 * minute.
 */
export async function startDemoOutbound(opts: {
  api: Transport;
  baseUrl: string;
  clock: Clock;
  log: FastifyBaseLogger;
  campaign: Pick<DemoCampaignReport, 'clId' | 'campaignId'>;
  topology: Topology;
  seed?: number;
}): Promise<DemoOutbound> {
  const { api, campaign, log } = opts;
  await resetLiveState(api, [], 'demo-outbound-reset', opts.clock.now() / 1000, CAMPAIGN_CALL_PREFIX);
  const session = await prepareOutbound({
    api,
    baseUrl: opts.baseUrl,
    clock: opts.clock,
    topology: opts.topology,
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    onStreamError: (message) => log.warn({ message }, 'demo outbound simulator'),
  });
  await session.start(200);
  const state = ((await must(api, 'campaign/list', {})).data as Array<{ campaignId: number; state: string }>).find(
    (c) => c.campaignId === campaign.campaignId,
  )?.state;
  if (state === 'draft' || state === 'paused') await must(api, 'campaign/start', { campaignId: campaign.campaignId });
  const feed = new LeadFeed(api, campaign.clId, campaign.campaignId);
  const topUp = () =>
    feed.topUp().then(
      (added) => (added > 0 ? log.info({ campaignId: campaign.campaignId, added }, 'demo lead feed: new leads added') : undefined),
      (err: unknown) => log.warn({ err }, 'demo lead feed failed'),
    );
  await topUp();
  const timer = setInterval(() => void topUp(), FEED_EVERY_MS);
  timer.unref();
  return {
    session,
    feed,
    campaignId: campaign.campaignId,
    async stop() {
      clearInterval(timer);
      await api.post('campaign/pause', { campaignId: campaign.campaignId });
      await session.close();
    },
  };
}
