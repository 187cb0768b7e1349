import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Clock } from '../clock.js';
import type { AccountService } from '../modules/account/account.service.js';
import type { SimulationRunner } from '../simulator/runner.js';
import { prepareSimulation, type TrafficOptions } from '../simulator/session.js';
import { injectTransport } from '../simulator/transport.js';
import { demoTopologies, startDemoOutbound, type DemoOutbound } from './outbound.js';
import { demoCredentials, seedDemo } from './seed.js';

/** Demo traffic: about 70 % occupancy for the demo's 20 inbound agents, so queues form now and then. */
export const DEMO_TRAFFIC: TrafficOptions = { ratePerMin: 8, talkSecs: 100, wrapupSecs: 15, patienceSecs: 180, breaksPerHour: 1, breakSecs: 240 };

/** The demo's traffic starts 5 minutes in the past, so the first look shows calls in progress. */
export const DEMO_WARMUP_SECS = 300;

export interface RunningDemo {
  runner: SimulationRunner;
  /** Once the server listens at `baseUrl`: the outbound team's switch reads the stream, then the campaign starts. */
  startOutbound(baseUrl: string): Promise<DemoOutbound>;
  /** Stops both sides: the campaign paused, simulated calls ended, agents logged out. */
  stop: () => Promise<void>;
}

/**
 * CALLCENTER_DEMO=1: seed the demo tenant (idempotent) and run the simulator
 * in process against its inbound groups, so live agents and queues show at
 * once; `startOutbound` then runs the outbound team's campaign (it needs the
 * server listening). `stop` ends the simulated calls and logs the agents out.
 */
export async function startDemo(
  app: FastifyInstance,
  accounts: AccountService,
  clock: Clock,
  log: FastifyBaseLogger,
  /** RECORDINGS_DIR: the simulated calls' recordings are written there (and reported), so call reports have playable audio. */
  recordingsDir?: string,
): Promise<RunningDemo> {
  const creds = demoCredentials();
  const report = await seedDemo(app, accounts, clock, creds);
  log.info(
    { username: creds.username, created: report.created, skipped: report.skipped },
    report.createdAccount ? 'demo tenant created' : 'demo tenant present',
  );
  const api = injectTransport(app, { ssid: report.ssid });
  const topologies = await demoTopologies(api);
  const { runner, runId } = await prepareSimulation({
    transport: api,
    clock,
    traffic: DEMO_TRAFFIC,
    topology: topologies.inbound,
    warmupSecs: DEMO_WARMUP_SECS,
    ...(recordingsDir !== undefined ? { recordingsDir } : {}),
  });
  await runner.tick();
  runner.start(500);
  log.info({ runId }, `demo simulator running: log in as "${creds.username}"`);
  let outbound: DemoOutbound | undefined;
  // A line a minute, so rejected events or failed decisions do not go unnoticed.
  let reportedErrors = 0;
  const reporter = setInterval(() => {
    const p = runner.progress;
    const o = outbound?.session.runner.progress;
    const errors = p.errors + (o?.errors ?? 0);
    const level = errors > reportedErrors ? 'warn' : 'info';
    reportedErrors = errors;
    log[level](
      {
        runId,
        progress: { ...p },
        stats: { ...runner.model.stats },
        ...(outbound ? { outbound: { progress: { ...o }, stats: { ...outbound.session.model.stats } } } : {}),
      },
      'demo simulator',
    );
  }, 60_000);
  reporter.unref();
  return {
    runner,
    async startOutbound(baseUrl) {
      outbound = await startDemoOutbound({ api, baseUrl, clock, log, campaign: report.campaign, topology: topologies.outbound });
      log.info({ campaignId: outbound.campaignId, runId: outbound.session.runId }, 'demo campaign running: the outbound team answers its dials');
      return outbound;
    },
    async stop() {
      clearInterval(reporter);
      await outbound?.stop();
      await runner.shutdown();
    },
  };
}
