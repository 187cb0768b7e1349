/**
 * Group commit for events/ingest: the batches of one account that arrive
 * while the account's previous ingest is being applied wait for it anyway
 * (the account's lock on PostgreSQL, the one connection on SQLite); here
 * they are then applied together, in one transaction, as one larger batch
 * would be (the events in the order the requests came), and each request
 * gets its own answer.
 *
 * Why (bench/ingest-calls.ts, 2026-11-29, four senders, the same build):
 * batches of 1,000 events ran at 1.2× the events/s of batches of 500 on
 * SQLite and 1.6× on PostgreSQL. A batch's cost is mostly per statement
 * (the account's lock, the working-set reads, the set-at-a-time writes, the
 * roll-up upserts of the same hours and agents, the commit), not per event.
 *
 * The plain path is each batch alone; it is also the fallback: when a
 * merged transaction fails, each of its batches is applied again alone, so
 * one batch's failure answers that request only. test/integration/
 * ingest-merge.test.ts compares the two paths' rows and answers.
 *
 * Not a library: DataLoader batches the calls of one tick and dispatches
 * the next batch while the previous one runs; a batch here is what arrived
 * while the previous one ran (and the requests whose bodies were read in the
 * same turn of the event loop), which is what the lock made them wait for.
 */
export interface MergeStats {
  /** Transactions that applied batches (merged or alone). */
  transactions: number;
  /** Requests' batches applied. */
  batches: number;
}

interface Waiting<T, R> {
  item: T;
  resolve: (r: R) => void;
  reject: (err: unknown) => void;
}

export class MergingQueue<T, R> {
  private readonly waiting = new Map<number, Array<Waiting<T, R>>>();
  readonly stats: MergeStats = { transactions: 0, batches: 0 };

  constructor(
    /** Applies the items together; answers one result per item, in order. */
    private readonly apply: (key: number, items: T[]) => Promise<R[]>,
    /** An item's size (events); a merge stops before it passes `maxSize` (it always takes one item). */
    private readonly sizeOf: (item: T) => number,
    private readonly maxSize: number,
  ) {}

  run(key: number, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.waiting.get(key);
      if (queue) {
        queue.push({ item, resolve, reject });
        return;
      }
      this.waiting.set(key, [{ item, resolve, reject }]);
      // After the I/O callbacks of this turn: the bodies read with this one join it.
      setImmediate(() => void this.lead(key));
    });
  }

  /** Applies the key's queue until it is empty; what arrives meanwhile joins the next round. */
  private async lead(key: number): Promise<void> {
    const queue = this.waiting.get(key)!;
    while (queue.length > 0) {
      const taken = this.take(queue);
      await this.applyRound(key, taken);
      // Requests whose bodies arrived during the round (SQLite runs a round without giving the loop a turn) join the next.
      if (queue.length > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.waiting.delete(key);
  }

  private take(queue: Array<Waiting<T, R>>): Array<Waiting<T, R>> {
    let size = this.sizeOf(queue[0]!.item);
    let n = 1;
    while (n < queue.length && size + this.sizeOf(queue[n]!.item) <= this.maxSize) size += this.sizeOf(queue[n++]!.item);
    return queue.splice(0, n);
  }

  private async applyRound(key: number, taken: Array<Waiting<T, R>>): Promise<void> {
    try {
      this.stats.transactions++;
      const results = await this.apply(
        key,
        taken.map((w) => w.item),
      );
      this.stats.batches += taken.length;
      taken.forEach((w, i) => w.resolve(results[i]!));
      return;
    } catch (err) {
      if (taken.length === 1) {
        taken[0]!.reject(err);
        return;
      }
    }
    // The merged transaction rolled back: each batch alone, so a failure answers its own request only.
    for (const w of taken) {
      try {
        this.stats.transactions++;
        const [result] = await this.apply(key, [w.item]);
        this.stats.batches++;
        w.resolve(result!);
      } catch (err) {
        w.reject(err);
      }
    }
  }
}
