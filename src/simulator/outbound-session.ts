import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import { DEFAULT_OUTBOUND, OutboundModel, type OutboundConfig } from './outbound.js';
import { CommandReader, OutboundRunner } from './outbound-runner.js';
import { resetLiveState } from './runner.js';
import { discoverTopology, type Topology } from './topology.js';
import { httpTransport, type Transport } from './transport.js';

export interface OutboundSession {
  runner: OutboundRunner;
  reader: CommandReader;
  model: OutboundModel;
  groups: Topology['groups'];
  runId: string;
  /** Stops reading, ends the run (calls end, agents log out) and revokes the switch token the session created. */
  close(): Promise<void>;
}

/**
 * The simulator as the switch of campaign dials (`simulate --outbound`):
 * the agents of the topology (discovered with client credentials, or from
 * a file), a switch token (created with client credentials and revoked at
 * the end; switch credentials are used as they are) to read `call.originate`
 * from the stream of the server at `baseUrl` and report through
 * `events/ingest`, and a seeded model starting now. Nothing is read or sent
 * until `start`.
 */
export async function prepareOutbound(opts: {
  /** The service with the caller's credentials (client: topology and a switch token; switch: used as the switch). */
  api: Transport;
  baseUrl: string;
  /** Used as the switch's when no switch token could be made (the caller's are switch credentials); a client session may leave them out. */
  creds?: { userId: string; token: string };
  clock: Clock;
  config?: Partial<OutboundConfig>;
  topology?: Topology;
  seed?: number;
  runId?: string;
  onStreamError?: (message: string) => void;
}): Promise<OutboundSession & { start(tickMs?: number): Promise<void> }> {
  const runId = opts.runId ?? `sim-${randomBytes(4).toString('hex')}`;
  const made = await opts.api.post('auth/token', { kind: 'switch', name: `simulate --outbound ${runId}` });
  if (made.status !== 'success' && !opts.creds) throw new Error(`auth/token answered ${made.code} ${made.message ?? ''}`.trim());
  const creds = made.status === 'success' ? { userId: String(made.userId), token: String(made.token) } : opts.creds!;
  const switchApi = httpTransport(opts.baseUrl, creds);
  const revoke = async () => {
    if (made.status === 'success') await opts.api.post('auth/revokeToken', { revoke: creds.token });
  };
  let groups: Topology['groups'];
  try {
    groups = (opts.topology ?? (await discoverTopology(opts.api, 0))).groups;
  } catch (err) {
    await revoke();
    throw err;
  }
  const agentIds = [...new Set(groups.flatMap((g) => g.agentIds))];
  await resetLiveState(switchApi, agentIds, runId, opts.clock.now() / 1000);
  const model = new OutboundModel({ ...DEFAULT_OUTBOUND, ...opts.config }, groups, {
    seed: opts.seed ?? randomBytes(4).readUInt32LE(0),
    start: opts.clock.now() / 1000,
    runId,
  });
  const runner = new OutboundRunner(model, switchApi, opts.clock);
  const reader = new CommandReader(opts.baseUrl, creds, (cmd) => runner.command(cmd), opts.onStreamError);
  return {
    runner,
    reader,
    model,
    groups,
    runId,
    async start(tickMs = 200) {
      await runner.begin();
      reader.start();
      await reader.connected;
      runner.start(tickMs);
    },
    async close() {
      await reader.stop();
      await runner.shutdown();
      await revoke();
    },
  };
}
