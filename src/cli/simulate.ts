import fs from 'node:fs';
import { ALL_PERMISSIONS } from '../auth/permissions.js';
import type { Principal } from '../auth/principal.js';
import { buildApp } from '../app.js';
import { systemClock } from '../clock.js';
import type { Config } from '../config/config.js';
import { migrate } from '../db/migrate.js';
import { openDatabase } from '../db/open.js';
import { demoTopologies } from '../demo/outbound.js';
import { demoCredentials, seedDemo } from '../demo/seed.js';
import type { SimulationRunner } from '../simulator/runner.js';
import { prepareSimulation, type TrafficOptions } from '../simulator/session.js';
import type { OutboundConfig } from '../simulator/outbound.js';
import { prepareOutbound } from '../simulator/outbound-session.js';
import { parseTopology, type Topology } from '../simulator/topology.js';
import { httpTransport, injectTransport, type Transport } from '../simulator/transport.js';
import { parseArgs } from './args.js';
import { swallowed } from '../swallowed.js';

const USAGE = `usage: callcenter simulate [--rate CALLS_PER_MIN] [--speed X] [--duration SECS] [--seed N]
                          [--url URL --user-id ID --token TOKEN [--topology FILE]] [--account USERNAME]
       callcenter simulate --outbound [--human 0.25] [--machine 0.1] [--busy 0.05] [--answer-min 5] [--answer-max 25]
                          [--talk 120] [--wrapup 10] [--speed X] [--duration SECS] [--seed N] [--url … | --account …]
  Without --url: in process, on the database of DATA_DIR / DATABASE_URL, for --account (default: the demo tenant).
  --outbound: the switch of the account's campaign dials instead of inbound traffic (docs/simulator.md).`;

/** A share between 0 and 1. */
function share(options: Record<string, string>, name: string, fallback: number): number {
  const raw = options[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new UsageError(`--${name} must be a number from 0 to 1`);
  return n;
}

/** --outbound's model settings from the options (defaults: src/simulator/outbound.ts). */
function outboundConfig(options: Record<string, string>, speed: number): Partial<OutboundConfig> {
  const cfg: Partial<OutboundConfig> = {
    speed,
    humanShare: share(options, 'human', 0.25),
    machineShare: share(options, 'machine', 0.1),
    busyShare: share(options, 'busy', 0.05),
    answerMinSecs: positive(options, 'answer-min', 5)!,
    answerMaxSecs: positive(options, 'answer-max', 25)!,
    talkSecs: positive(options, 'talk', 120)!,
    wrapupSecs: positive(options, 'wrapup', 10)!,
  };
  if (cfg.humanShare! + cfg.machineShare! + cfg.busyShare! > 1) throw new UsageError('--human + --machine + --busy must be at most 1');
  if (cfg.answerMinSecs! > cfg.answerMaxSecs!) throw new UsageError('--answer-min must be at most --answer-max');
  return cfg;
}

function positive(options: Record<string, string>, name: string, fallback: number | undefined): number | undefined {
  const raw = options[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be a positive number`);
  return n;
}

class UsageError extends Error {}

/** `callcenter simulate`: realistic traffic through route/decide and events/ingest, with a live progress line. */
export async function simulateCommand(argv: string[], config: Config): Promise<number> {
  const { options } = parseArgs(argv);
  let traffic: TrafficOptions;
  let duration: number | undefined;
  let topology: Topology | undefined;
  let outbound: Partial<OutboundConfig> | undefined;
  try {
    traffic = { ratePerMin: positive(options, 'rate', 20)!, speed: positive(options, 'speed', 1)! };
    if (options.outbound !== undefined) outbound = outboundConfig(options, traffic.speed!);
    duration = positive(options, 'duration', undefined);
    if (options.topology) topology = parseTopology(fs.readFileSync(options.topology, 'utf8'));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const seed = options.seed !== undefined ? Number(options.seed) >>> 0 : undefined;

  if (options.url) {
    const userId = options['user-id'];
    const token = options.token;
    if (!userId || !token) {
      console.error(`--url needs --user-id and --token (a switch token with --topology, or an API token)\n${USAGE}`);
      return 2;
    }
    if (outbound) return runOutbound(httpTransport(options.url, { userId, token }), options.url, { userId, token }, outbound, duration, topology, seed);
    return run(httpTransport(options.url, { userId, token }), traffic, duration, topology, seed);
  }

  const db = openDatabase(config);
  try {
    await migrate(db);
    const { app, services } = await buildApp({ config: { ...config, logLevel: 'warn' }, db, logToStderr: true });
    try {
      const username = options.account ?? demoCredentials().username;
      let row = await db.get<{ id: number }>('SELECT id FROM accounts WHERE username = $1', [username]);
      if (!row && username === demoCredentials().username) {
        await seedDemo(app, services.accounts, systemClock);
        row = await db.get<{ id: number }>('SELECT id FROM accounts WHERE username = $1', [username]);
      }
      if (!row) {
        console.error(`no account named ${JSON.stringify(username)}`);
        return 1;
      }
      // A client API token for this run, revoked at the end.
      const { auth } = services;
      const principal: Principal = {
        kind: 'client',
        accountId: row.id,
        userId: String(row.id),
        agentId: null,
        isOperator: false,
        permissions: ALL_PERMISSIONS,
        canSee: true,
        credential: { type: 'token', hash: '' },
      };
      const creds = await auth.createToken(principal, 'api', 'simulator');
      try {
        // The demo tenant's inbound traffic goes to its inbound groups and --outbound drives its outbound team, as with CALLCENTER_DEMO=1.
        // (A tenant seeded before it had an outbound team is driven whole, as before.)
        if (!topology && username === demoCredentials().username) {
          const split = await demoTopologies(injectTransport(app, creds));
          if (split.outbound.groups.length > 0) topology = outbound ? split.outbound : split.inbound;
        }
        if (outbound) {
          // The stream is HTTP only (the switch reads it as a connection): this process listens on a loopback port for it.
          await app.listen({ port: 0, host: '127.0.0.1' });
          const address = app.server.address();
          const port = typeof address === 'object' && address ? address.port : 0;
          return await runOutbound(injectTransport(app, creds), `http://127.0.0.1:${port}`, creds, outbound, duration, topology, seed);
        }
        // In process the simulator is the switch of this data directory: it records answered calls into RECORDINGS_DIR.
        return await run(injectTransport(app, creds), traffic, duration, topology, seed, config.recordingsDir);
      } finally {
        await auth.revokeToken(principal, creds.token).catch(swallowed('cli.cleanup'));
      }
    } finally {
      await app.close();
    }
  } finally {
    await db.close();
  }
}

async function run(
  transport: Transport,
  traffic: TrafficOptions,
  duration: number | undefined,
  topology: Topology | undefined,
  seed: number | undefined,
  recordingsDir?: string,
): Promise<number> {
  let prepared;
  try {
    prepared = await prepareSimulation({ transport, clock: systemClock, traffic, topology, seed, ...(recordingsDir !== undefined ? { recordingsDir } : {}) });
  } catch (err) {
    console.error(`cannot start the simulation: ${(err as Error).message}`);
    return 1;
  }
  const { runner, topology: t, runId } = prepared;
  const agents = new Set(t.groups.flatMap((g) => g.agentIds)).size;
  console.log(
    `simulating ${traffic.ratePerMin} calls/min at ${traffic.speed}x on ${t.routes.length} DIDs, ${t.groups.length} groups, ${agents} agents, ${t.callers.length} known callers (run ${runId}); Ctrl-C stops`,
  );
  const started = Date.now();
  runner.start(200);
  await showProgressUntilDone(() => progressLine(runner, started), duration);
  await runner.shutdown();
  if (process.stdout.isTTY) process.stdout.write('\n');
  console.log(progressLine(runner, started));
  const p = runner.progress;
  if (p.lastError) console.log(`last error: ${p.lastError}`);
  console.log(JSON.stringify({ ...runner.model.stats, accepted: p.accepted, duplicates: p.duplicates, errors: p.errors }));
  return 0;
}

/** `--outbound`: the simulator is the switch of the account's campaign dials until Ctrl-C or --duration. */
async function runOutbound(
  api: Transport,
  baseUrl: string,
  creds: { userId: string; token: string },
  config: Partial<OutboundConfig>,
  duration: number | undefined,
  topology: Topology | undefined,
  seed: number | undefined,
): Promise<number> {
  let session;
  try {
    session = await prepareOutbound({
      api,
      baseUrl,
      creds,
      clock: systemClock,
      config,
      topology,
      seed,
      onStreamError: (m) => console.error(m),
    });
  } catch (err) {
    console.error(`cannot start the simulation: ${(err as Error).message}`);
    return 1;
  }
  const started = Date.now();
  // Reading the stream before saying so: a dial pushed before then would reach no switch.
  await session.start(200);
  const agents = new Set(session.groups.flatMap((g) => g.agentIds)).size;
  console.log(
    `answering campaign dials as the switch at ${config.speed}x for ${agents} agents in ${session.groups.length} groups (run ${session.runId}): ` +
      `${config.humanShare} human, ${config.machineShare} machine, ${config.busyShare} busy; Ctrl-C stops`,
  );
  const { runner, model } = session;
  const line = () => {
    const p = runner.progress;
    const s = model.stats;
    return `${Math.round((Date.now() - started) / 1000)}s  dials ${s.dials}  in progress ${model.callsInProgress}  connected ${s.connected}  abandoned ${s.abandoned}  agents free ${model.freeAgents}/${agents}  events ${p.eventsSent}  errors ${p.errors}`;
  };
  await showProgressUntilDone(line, duration);
  await session.close();
  if (process.stdout.isTTY) process.stdout.write('\n');
  console.log(line());
  const p = runner.progress;
  if (p.lastError) console.log(`last error: ${p.lastError}`);
  const s = model.stats;
  const talkShare = s.loggedInSecs > 0 ? Math.round((s.talkSecs / s.loggedInSecs) * 1000) / 10 : null;
  console.log(JSON.stringify({ ...s, talkShare, commands: p.commands, accepted: p.accepted, duplicates: p.duplicates, errors: p.errors }));
  return 0;
}

function progressLine(runner: SimulationRunner, started: number): string {
  const p = runner.progress;
  const secs = Math.round((Date.now() - started) / 1000);
  return `${secs}s  calls in progress ${p.callsInProgress}  events ${p.eventsSent} (${p.eventsPerSec}/s)  blocked ${p.blocked}  errors ${p.errors}`;
}

/**
 * A progress line every second (rewritten in place on a terminal, every fifth
 * otherwise) until `duration` seconds passed, or SIGINT / SIGTERM.
 */
async function showProgressUntilDone(line: () => string, duration: number | undefined): Promise<void> {
  const tty = process.stdout.isTTY;
  let ticks = 0;
  const show = setInterval(() => {
    ticks++;
    if (tty) process.stdout.write(`\r${line()}\x1b[K`);
    else if (ticks % 5 === 0) console.log(line());
  }, 1000);
  await new Promise<void>((resolve) => {
    const timer = duration !== undefined ? setTimeout(resolve, duration * 1000) : undefined;
    const onSignal = () => {
      if (timer) clearTimeout(timer);
      resolve();
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  clearInterval(show);
}
