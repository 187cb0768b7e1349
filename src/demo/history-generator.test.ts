import { describe, expect, it } from 'vitest';
import { generateHistory, type Topology } from './history-generator.js';

const topology: Topology = {
  groups: [55, 101, 102, 103],
  dids: ['8001', '8002', '8003'],
  agentsByGroup: [
    [1, 2, 3],
    [3, 4, 5],
    [5, 6, 7],
    [7, 8, 1],
  ],
  campaigns: ['a', 'b'],
};

describe('generateHistory (seed --calls)', () => {
  it('yields every call, retries included, in queued-time order, each retry after its original', () => {
    for (const seed of [1, 2, 3, 99, 12345]) {
      const calls = [...generateHistory({ accountId: 1, total: 5000, startDay: 1_767_225_600, days: 3, topology, runId: 'r', seed })];
      expect(calls).toHaveLength(5000);
      const retries = calls.filter((c) => c.retryOf !== null);
      expect(retries.length).toBeGreaterThan(50);
      for (let i = 1; i < calls.length; i++) expect(calls[i]!.queuedAt).toBeGreaterThanOrEqual(calls[i - 1]!.queuedAt);
      const at = new Map(calls.map((c, i) => [c.callId, i]));
      for (const r of retries) expect(at.get(r.retryOf!)!).toBeLessThan(at.get(r.callId)!);
    }
  });
});
