import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import { TrafficModel } from './model.js';
import { RecordingWriter } from './recordings.js';
import { resetLiveState, SimulationRunner } from './runner.js';
import { discoverTopology, type Topology } from './topology.js';
import type { Transport } from './transport.js';
import { DEFAULT_TRAFFIC, type TrafficConfig } from './types.js';

export type TrafficOptions = Partial<Omit<TrafficConfig, 'routes' | 'groups' | 'callers'>>;

/**
 * A ready runner for one account: the topology (discovered through the API
 * unless given), a seeded model starting now, and the agents' leftover live
 * state from an earlier run reset.
 */
export async function prepareSimulation(opts: {
  transport: Transport;
  clock: Clock;
  traffic?: TrafficOptions;
  topology?: Topology;
  seed?: number;
  /** Unique per run: prefixes event and call ids. */
  runId?: string;
  /**
   * Start the model this many seconds in the past: the first tick replays them at once, so calls are
   * already in progress when the run begins (the demo uses it).
   */
  warmupSecs?: number;
  /** Record answered calls: tone WAV files written here, reported with `call.recording` (paths relative to it). */
  recordingsDir?: string;
}): Promise<{ runner: SimulationRunner; model: TrafficModel; topology: Topology; runId: string }> {
  const topology = opts.topology ?? (await discoverTopology(opts.transport));
  const runId = opts.runId ?? `sim-${randomBytes(4).toString('hex')}`;
  const cfg: TrafficConfig = { ...DEFAULT_TRAFFIC, ...opts.traffic, ...topology, ...(opts.recordingsDir !== undefined ? { recordings: true } : {}) };
  // Before the model starts its clock: ending many stale calls can take a while.
  await resetLiveState(opts.transport, [...new Set(topology.groups.flatMap((g) => g.agentIds))], runId, opts.clock.now() / 1000);
  const model = new TrafficModel(cfg, { seed: opts.seed ?? randomBytes(4).readUInt32LE(0), start: opts.clock.now() / 1000 - (opts.warmupSecs ?? 0), runId });
  const runner = new SimulationRunner(
    model,
    opts.transport,
    opts.clock,
    opts.recordingsDir !== undefined ? new RecordingWriter(opts.recordingsDir) : undefined,
  );
  return { runner, model, topology, runId };
}
