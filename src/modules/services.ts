import type { AppContext } from '../context.js';
import { AccountService } from './account/account.service.js';
import { AuditService, purgeAuditBefore, pseudonymiseNumberInAudit } from './audit/audit.service.js';
import { AgentCadService } from './agent/agent-cad.service.js';
import { AgentListService } from './agent/agent-list.service.js';
import { AgentService } from './agent/agent.service.js';
import { ChunkPool } from '../http/chunk-pool.js';
import { AnalysisService } from './analysis/analysis.service.js';
import { RollupSink } from './analysis/rollup/rollup-sink.js';
import { CampaignService } from './campaign/campaign.service.js';
import { Dialer } from './campaign/dialer.js';
import { CampaignCallsService } from './campaign/campaign-calls.service.js';
import { DialerWorker } from './campaign/dialer.worker.js';
import { CampaignOutcomes, DISPOSITION_WAIT_SECS } from './campaign/outcomes.js';
import { CampaignFiguresService } from './campaign/campaign-figures.service.js';
import { ObdReports } from './campaign/obd-report.js';
import { allAgentTime, CampaignWrapSink } from './campaign/wrap-sink.js';
import { CallHistoryService } from './calls/call-history.service.js';
import { allSinks } from './calls/call-record-sink.js';
import { CallReportService } from './callreport/callreport.service.js';
import { ContactListService } from './contactlist/contactlist.service.js';
import { DidService } from './did/did.service.js';
import { BlacklistService } from './directory/blacklist.service.js';
import { ContactService } from './directory/contact.service.js';
import { DirectoryService } from './directory/directory.service.js';
import { DncService } from './directory/dnc.service.js';
import { StickyService } from './directory/sticky.service.js';
import { EventsService } from './events/events.service.js';
import { LiveStateService } from './events/live-state.service.js';
import { PrivacyService } from './privacy/privacy.service.js';
import { RetentionJob } from './retention/retention-job.js';
import { HourGridJob } from './analysis/hour-grid-job.js';
import { GroupService } from './group/group.service.js';
import { LiveService } from './live/live.service.js';
import { QueueService } from './queue/queue.service.js';
import { ReportAgentTimeSink, ReportCallSink } from './report/rollup/report-sinks.js';
import { ReportService } from './report/report.service.js';
import { RoleService } from './role/role.service.js';
import { RoutingService } from './routing/routing.service.js';
import { StaffingService } from './staffing/staffing.service.js';
import { SwitchService } from './switch/switch.service.js';
import { DeliveryWorker } from './webhook/delivery.worker.js';
import { WebhookHttp } from './webhook/webhook-http.js';
import { WebhookSink } from './webhook/webhook-sink.js';
import { WebhookService } from './webhook/webhook.service.js';

/**
 * The composition root: every service of the process, built once, in
 * dependency order (a service only receives services built above it).
 * Services with state — the live view caches, the change subscriptions, the
 * analysis day cache — therefore exist once per process. Repositories are not
 * built here: a repository is a view of one tenant in one transaction
 * (`new XRepository(tenant(tx, accountId))`), made by its own service per call.
 */
export function buildServices(ctx: AppContext, built: { audit: AuditService }) {
  const { db, clock, auth, config } = ctx;
  // Built with the credentials (src/app.ts): lockouts and logins after failures are audit records.
  const { audit } = built;
  const accounts = new AccountService({ db, clock });
  const dids = new DidService({ db, clock });
  const groups = new GroupService({ db, clock });
  const roles = new RoleService({ db, clock, auth });
  const agents = new AgentService({ db, clock, auth, roles, groups, dids });
  const agentLists = new AgentListService({ db, groups });
  const agentCad = new AgentCadService({ db });
  const contacts = new ContactService({ db, clock, accounts });
  const dnc = new DncService({ db, clock });
  const blacklist = new BlacklistService({ db, dids });
  const sticky = new StickyService({ db, clock, agents, groups, dids });
  const directory = new DirectoryService({ db, dnc, blacklist, sticky });
  // The call history's one writer; finished calls reach the analysis and report roll-ups and the webhook outbox through its sinks.
  // Outbound campaigns' contact lists: contactList/delete is refused while a campaign that is not stopped or completed dials the list.
  const contactLists: ContactListService = new ContactListService({
    db,
    clock,
    listInUse: async (accountId, clId) => {
      const campaignId = await campaigns.listInUse(accountId, clId);
      return campaignId === null ? null : String(campaignId);
    },
  });
  // Push reports and call reports of campaign calls name the campaign, the disposition, the attempt before and the contact.
  const obdReports = new ObdReports(contactLists);
  const webhookSink = new WebhookSink({
    clock,
    onQueued: () => webhookWorker.nudge(),
    // A campaign call an agent answered is reported once its disposition is set (or the service's `completed`, 10 minutes on).
    held: { hold: (tx, accountId, callIds) => obdReports.held(tx, accountId, callIds), holdMs: (DISPOSITION_WAIT_SECS + 120) * 1000 },
  });
  const history = new CallHistoryService({ db, sink: allSinks(new RollupSink(), new ReportCallSink(), webhookSink) });
  // The one pool large answers (analysis, reports) are written in; GET /metrics reads its refusals.
  const chunks = new ChunkPool({ poison: config.poisonReleasedChunks });
  const analysis = new AnalysisService({ db, clock, accounts, cacheBytes: config.analysisCacheBytes, chunks });
  const liveState = new LiveStateService({ db });
  // Agent state spans closed at ingest feed the report roll-ups' agent time, and campaign calls' wrap-up (report/campaign's aht).
  // Campaign calls' events reach the dialer's outcomes in the ingest transaction.
  const events = new EventsService({
    ctx,
    accounts,
    history,
    agentTime: allAgentTime(new ReportAgentTimeSink(), new CampaignWrapSink()),
    outbound: new CampaignOutcomes(history),
  });
  const live = new LiveService({ ctx, accounts, groups, liveState });
  const routing = new RoutingService({ facts: directory, live: liveState, dids, groups });
  const switches = new SwitchService({ db, clock, agents, groups, dids, liveState, events, accounts });
  const callReports = new CallReportService({ db, clock, recordingsDir: config.recordingsDir, accounts, agents, history, obd: obdReports });
  const webhookHttp = new WebhookHttp({ allowPrivate: config.webhookAllowPrivate, timeoutMs: config.webhookTimeoutMs });
  const webhookWorker = new DeliveryWorker({
    db,
    clock,
    log: ctx.log,
    http: webhookHttp,
    reports: callReports,
    batch: 200,
    leaseMs: config.webhookTimeoutMs + 5_000,
    pollMs: 500,
  });
  const webhooks = new WebhookService({ db, clock, http: webhookHttp, worker: webhookWorker, allowPrivate: config.webhookAllowPrivate });
  const reports = new ReportService({ db, accounts, groups, cacheBytes: config.reportCacheBytes, chunks });
  const staffing = new StaffingService({ clock, accounts, groups, reports });
  // Erasure rewrites earlier audit records too (the one rewrite the trail allows).
  const privacy = new PrivacyService({ db, recordingsDir: config.recordingsDir, log: ctx.log, audit: pseudonymiseNumberInAudit });
  // auditDays: the one deletion the append-only trail allows.
  const retention = new RetentionJob({
    db,
    clock,
    accounts,
    recordingsDir: config.recordingsDir,
    log: ctx.log,
    audit: purgeAuditBefore,
    batchSize: config.retentionBatch,
    pauseMs: config.retentionPauseMs,
  });
  const hourGrids = new HourGridJob({ db, clock, accounts, log: ctx.log });
  const campaigns = new CampaignService({ db, clock, groups, dids, lists: contactLists });
  // A disposition makes the push report held for it due.
  const released = (accountId: number, callId: string) => webhooks.release(accountId, callId);
  const dialer = new Dialer({
    db,
    clock,
    log: ctx.log,
    events,
    accounts,
    agents,
    liveState,
    dnc,
    blacklist,
    contacts,
    lists: contactLists,
    onDisposed: released,
  });
  const dialerWorker = new DialerWorker({ db, clock, log: ctx.log, dialer });
  const campaignCalls = new CampaignCallsService({ db, clock, dialer, accounts, agents, liveState, dnc, lists: contactLists, onDisposed: released });
  // queue/count's campId[] and report/campaign count the dials, not the queue.
  const campaignFigures = new CampaignFiguresService({ db, clock, accounts, lists: contactLists, reports });
  const queue = new QueueService({ ctx, liveState, history, events, live, campaigns: campaignFigures });
  return {
    auth,
    audit,
    accounts,
    dids,
    groups,
    roles,
    agents,
    agentLists,
    agentCad,
    contacts,
    dnc,
    blacklist,
    sticky,
    directory,
    history,
    chunks,
    analysis,
    liveState,
    events,
    live,
    queue,
    routing,
    switches,
    callReports,
    webhookHttp,
    webhookWorker,
    webhooks,
    reports,
    staffing,
    privacy,
    retention,
    hourGrids,
    contactLists,
    campaigns,
    dialer,
    dialerWorker,
    campaignCalls,
    campaignFigures,
  };
}

export type Services = ReturnType<typeof buildServices>;
