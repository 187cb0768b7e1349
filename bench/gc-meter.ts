/**
 * What a stretch of in-process work costs the garbage collector: GC time
 * (PerformanceObserver `gc` entries, by kind) and bytes allocated (V8's
 * sampling heap profiler through the inspector, told to keep the samples of
 * objects the GC has since collected: the young generation's garbage is the
 * point). Sampling every 32 KiB on average: a few per cent of error over
 * megabytes, no measurable slowdown. Read the CPU figures of a run with the
 * meter on only against another run with it on.
 *
 * GC_METER_TOP=N lists N functions (30); GC_METER_PROMOTED=1 drops the
 * samples the young generation's collections freed: what is left is what
 * was promoted to the old generation (or is still alive at the end).
 */
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { Session } from 'node:inspector/promises';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

export async function gcMeter(): Promise<{ report(per: number): Promise<string> }> {
  const gc = new Map<string, { n: number; ms: number }>();
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = KINDS[(e as PerformanceEntry & { detail: { kind: number } }).detail.kind] ?? 'other';
      const g = gc.get(kind) ?? { n: 0, ms: 0 };
      g.n++;
      g.ms += e.duration;
      gc.set(kind, g);
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 32768,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: process.env.GC_METER_PROMOTED === undefined,
  });
  return {
    async report(per) {
      const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: ProfileNode } };
      session.disconnect();
      // The observer's entries arrive on a later tick.
      await new Promise((r) => setImmediate(r));
      obs.disconnect();
      const self = new Map<string, number>();
      let total = 0;
      const name = (n: ProfileNode) =>
        `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(src|bench|node_modules)\//, '$1/')}:${n.callFrame.lineNumber + 1}:${n.callFrame.columnNumber + 1}`;
      // A frame and its caller's: anonymous closures and builtins (push, set) say little alone.
      const walk = (n: ProfileNode, caller = '') => {
        const where = `${name(n)} < ${caller}`;
        self.set(where, (self.get(where) ?? 0) + n.selfSize);
        total += n.selfSize;
        for (const c of n.children) walk(c, name(n));
      };
      walk(profile.head);
      const lines = [`allocated ${(total / per / 1024).toFixed(0)} KiB a batch (sampled)`];
      for (const [kind, g] of gc) lines.push(`  GC ${kind}: ${(g.n / per).toFixed(2)} a batch, ${(g.ms / per).toFixed(2)} ms a batch`);
      lines.push('  allocating most (self, KiB a batch):');
      for (const [where, bytes] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.GC_METER_TOP ?? 30)))
        lines.push(`  ${(bytes / per / 1024).toFixed(1).padStart(8)}  ${where}`);
      return lines.join('\n');
    },
  };
}
