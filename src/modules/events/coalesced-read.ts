interface Batch<V> {
  promise: Promise<V>;
  resolve(v: V): void;
  reject(err: unknown): void;
}

function batch<V>(): Batch<V> {
  let resolve!: (v: V) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<V>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
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
 */
export class CoalescedRead<K, V> {
  private readonly running = new Set<K>();
  private readonly next = new Map<K, Batch<V>>();

  constructor(private readonly fetch: (key: K) => Promise<V>) {}

  read(key: K): Promise<V> {
    let b = this.next.get(key);
    if (!b) {
      b = batch<V>();
      this.next.set(key, b);
      if (!this.running.has(key)) setImmediate(() => this.start(key));
    }
    return b.promise;
  }

  private start(key: K): void {
    const b = this.next.get(key);
    if (!b) return;
    this.next.delete(key);
    this.running.add(key);
    this.fetch(key).then(b.resolve, b.reject).finally(() => {
      this.running.delete(key);
      if (this.next.has(key)) this.start(key);
    });
  }
}
