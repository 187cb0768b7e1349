import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { toneWav } from './wav.js';

/** Seconds of every simulated recording: enough to hear, small on disk (16 kB). */
export const RECORDING_SECS = 2;

/**
 * Writes the simulator's recordings under a recordings directory, as a
 * switch's recorder would: a tone per call (its pitch from the agent, so two
 * agents' recordings sound different), written before the `call.recording`
 * event that reports it is sent.
 */
export class RecordingWriter {
  constructor(private readonly dir: string) {}

  async write(relative: string, agentId: number | undefined): Promise<void> {
    const file = path.join(this.dir, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, toneWav(RECORDING_SECS, 330 + ((agentId ?? 0) % 12) * 55));
  }
}
