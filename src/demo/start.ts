import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Clock } from '../clock.js';
import type { AccountService } from '../modules/account/account.service.js';
import type { SimulationRunner } from '../simulator/runner.js';
import { prepareSimulation, type TrafficOptions } from '../simulator/session.js';
import { injectTransport } from '../simulator/transport.js';
import { demoCredentials, seedDemo } from './seed.js';

/** Demo traffic: about 70 % occupancy for the demo's 20 agents, so queues form now and then. */
export const DEMO_TRAFFIC: TrafficOptions = { ratePerMin: 8, talkSecs: 100, wrapupSecs: 15, patienceSecs: 180, breaksPerHour: 1, breakSecs: 240 };

/** The demo's traffic starts 5 minutes in the past, so the first look shows calls in progress. */
export const DEMO_WARMUP_SECS = 300;

/**
 * CALLCENTER_DEMO=1: seed the demo tenant (idempotent) and run the simulator
 * in process against it, so live agents and queues show at once. Returns a
 * stop function that ends the simulated calls and logs the agents out.
 */
export async function startDemo(
  app: FastifyInstance,
  accounts: AccountService,
  clock: Clock,
  log: FastifyBaseLogger,
  /** RECORDINGS_DIR: the simulated calls' recordings are written there (and reported), so call reports have playable audio. */
  recordingsDir?: string,
): Promise<{ runner: SimulationRunner; stop: () => Promise<void> }> {
  const creds = demoCredentials();
  const report = await seedDemo(app, accounts, clock, creds);
  log.info(
    { username: creds.username, created: report.created, skipped: report.skipped },
    report.createdAccount ? 'demo tenant created' : 'demo tenant present',
  );
  const { runner, runId } = await prepareSimulation({
    transport: injectTransport(app, { ssid: report.ssid }),
    clock,
    traffic: DEMO_TRAFFIC,
    warmupSecs: DEMO_WARMUP_SECS,
    ...(recordingsDir !== undefined ? { recordingsDir } : {}),
  });
  await runner.tick();
  runner.start(500);
  log.info({ runId }, `demo simulator running: log in as "${creds.username}"`);
  // A line a minute, so rejected events or failed decisions do not go unnoticed.
  let reportedErrors = 0;
  const reporter = setInterval(() => {
    const p = runner.progress;
    const level = p.errors > reportedErrors ? 'warn' : 'info';
    reportedErrors = p.errors;
    log[level]({ runId, progress: { ...p }, stats: { ...runner.model.stats } }, 'demo simulator');
  }, 60_000);
  reporter.unref();
  return {
    runner,
    stop: () => {
      clearInterval(reporter);
      return runner.shutdown();
    },
  };
}
