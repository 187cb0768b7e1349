import { describe, expect, it } from 'vitest';
import { CoalescedRead } from './coalesced-read.js';

/** A store whose reads finish only when the test says so. */
function slowStore() {
  let value = 0;
  const reads: Array<() => void> = [];
  return {
    write: (v: number) => (value = v),
    fetches: () => reads.length,
    finishRead: () => reads.shift()!(),
    fetch: () =>
      new Promise<number>((resolve) => {
        const seen = value; // what a read that starts now sees
        reads.push(() => resolve(seen));
      }),
  };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('CoalescedRead', () => {
  it('answers the callers of one moment with one read', async () => {
    let fetches = 0;
    const r = new CoalescedRead(async (k: string) => `${k}:${++fetches}`);
    const answers = await Promise.all([r.read('a'), r.read('a'), r.read('a'), r.read('b')]);
    expect(answers).toEqual(['a:1', 'a:1', 'a:1', 'b:2']);
  });

  it('never answers a caller with a read that started before it called (a write just before it is seen)', async () => {
    const store = slowStore();
    const r = new CoalescedRead(() => store.fetch());
    const first = r.read('k');
    await turn();
    expect(store.fetches()).toBe(1); // the first read is running
    store.write(7); // committed after that read started
    const second = r.read('k');
    const third = r.read('k');
    store.finishRead();
    expect(await first).toBe(0);
    await turn();
    expect(store.fetches()).toBe(1); // the next read started when the first ended
    store.finishRead();
    expect(await second).toBe(7);
    expect(await third).toBe(7);
  });

  it('hands a failed read to its callers only; the next read runs again', async () => {
    let fail = true;
    const r = new CoalescedRead(async () => {
      if (fail) throw new Error('database away');
      return 1;
    });
    const failed = await Promise.allSettled([r.read('k'), r.read('k')]);
    expect(failed.map((f) => f.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await r.read('k')).toBe(1);
  });
});

describe('CoalescedRead when a read misbehaves', () => {
  it('survives a fetch that throws instead of rejecting', async () => {
    let calls = 0;
    const r = new CoalescedRead<string, number>((): Promise<number> => {
      if (++calls === 1) throw new Error('thrown, not rejected');
      return Promise.resolve(calls);
    });
    await expect(r.read('k')).rejects.toThrow('thrown, not rejected');
    expect(await r.read('k')).toBe(2);
  });

  it('does not let a read that never ends hold the next callers back past its patience', async () => {
    let calls = 0;
    const r = new CoalescedRead<string, number>(() => (++calls === 1 ? new Promise<number>(() => {}) : Promise.resolve(calls)), 20);
    void r.read('k'); // hangs for ever (a half-open connection)
    await turn();
    const waiting = r.read('k'); // arrives within the patience: waits for the hung read to end
    await new Promise((res) => setTimeout(res, 30));
    const late = r.read('k'); // past the patience: starts the next read, for both
    expect(await waiting).toBe(2);
    expect(await late).toBe(2);
    expect(await r.read('k')).toBe(3);
  });
});
