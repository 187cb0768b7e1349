interface Batch<V> {
  promise: Promise<V>;
  resolve(v: V): void;
  reject(err: unknown): void;
  /** Its start is queued (no read running, or the running one outlived its patience). */
  scheduled: boolean;
}

function batch<V>(): Batch<V> {
  let resolve!: (v: V) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<V>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject, scheduled: false };
}

/**
 * Shares reads of a small, often-read value (a live view's version) among
 * the requests that ask for it at the same moment, the way group commit
 * shares a disk flush. Every caller is answered by a read that *started
 * after it called*, so it sees every write committed before its request
 * arrived, exactly as if it had read alone: callers arriving while a read
 * is running wait for the next one, which starts when that one ends (or at
 * the end of the current turn of the event loop when none is running). Fifty
 * wallboards polling one account then cost one read per batch, not fifty.
 *
 * A read still running after `patienceMs` (a connection gone half-open) no
 * longer holds the next one back: only its own callers wait for it.
 */
export class CoalescedRead<K, V> {
  /** Per key, the running read's start time and identity. */
  private readonly running = new Map<K, { since: number; id: object }>();
  private readonly next = new Map<K, Batch<V>>();

  constructor(
    private readonly fetch: (key: K) => Promise<V>,
    private readonly patienceMs = 2000,
  ) {}

  read(key: K): Promise<V> {
    let b = this.next.get(key);
    if (!b) this.next.set(key, (b = batch<V>()));
    if (!b.scheduled) {
      const run = this.running.get(key);
      if (!run || Date.now() - run.since > this.patienceMs) {
        b.scheduled = true;
        setImmediate(() => this.start(key));
      }
    }
    return b.promise;
  }

  private start(key: K): void {
    const b = this.next.get(key);
    if (!b) return;
    this.next.delete(key);
    const id = {};
    this.running.set(key, { since: Date.now(), id });
    let pending: Promise<V>;
    try {
      pending = this.fetch(key);
    } catch (err) {
      pending = Promise.reject(err); // a fetch that throws instead of rejecting must not wedge the key
    }
    pending.then(b.resolve, b.reject).finally(() => {
      // A read that outlived its patience was replaced: it no longer owns the key.
      if (this.running.get(key)?.id !== id) return;
      this.running.delete(key);
      if (this.next.has(key)) this.start(key);
    });
  }
}
