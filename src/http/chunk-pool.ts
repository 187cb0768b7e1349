import type { DataStream } from './answer.js';

/** A chunk is handed over once it holds this much: big enough that a write per chunk costs little. */
export const CHUNK = 64 * 1024;

/** Why a release was refused (`callcenter_chunk_releases_refused_total{reason}`). */
export type RefusedRelease = 'twice' | 'stale' | 'shared';

export interface ChunkPoolOptions {
  /** At most this many free buffers are held for later answers (default 16). */
  keep?: number;
  /**
   * Fill a released buffer with POISON (tests): a chunk still read after its
   * release then shows in the answer as a run of `0xDB`, never as bytes of
   * the next answer that happen to be right.
   */
  poison?: boolean;
}

export const POISON = 0xdb;

/** One buffer of the pool: how many times it was handed out, and whether it is out now. */
interface Slot {
  generation: number;
  out: boolean;
  /** A chunk of this generation was already put in an answer: a second one retires the buffer. */
  leased: boolean;
  /** Never handed out again (a producer put two chunks of one buffer in answers). */
  retired: boolean;
}

/**
 * Buffers answers' chunks are written in, used again once a chunk has been
 * sent. Built once, in the composition root (modules/services.ts), and handed
 * to the services that write large answers: a month of hours by agent is then
 * written in the same few buffers of 256 kB ask after ask, instead of 26 MB
 * of fresh ones a time; V8 frees such memory only when a collection finds the
 * buffers' wrappers, and until then it counts in the process's memory
 * (PRODUCT.md §8).
 *
 * A chunk is a **lease**: when a chunk goes into an answer (`piecesOrStream`,
 * the one way chunks reach a sender) it is stamped with its buffer's
 * generation; `release` takes the buffer back only if the chunk's stamp is
 * the buffer's current generation and the buffer is out. A second release,
 * or a late release after the buffer was handed out again, is refused and
 * counted — never a second owner of one buffer, so one answer's bytes can
 * never be written into another's (another tenant's) while it is sent.
 */
export class ChunkPool {
  static readonly SIZE = 4 * CHUNK;
  private readonly free: Buffer[] = [];
  /** The memory this pool handed out: only that is taken back (a kept answer's bytes never are). */
  private readonly slots = new WeakMap<ArrayBufferLike, Slot>();
  /** Each chunk put in an answer → its buffer's generation then. */
  private readonly stamps = new WeakMap<Buffer, number>();
  private readonly keep: number;
  private readonly poison: boolean;
  private readonly refusedCounts: Record<RefusedRelease, number> = { twice: 0, stale: 0, shared: 0 };

  constructor(options: ChunkPoolOptions = {}) {
    this.keep = options.keep ?? 16;
    this.poison = options.poison ?? false;
  }

  /** Releases refused since start, by reason (GET /metrics). */
  get refused(): Readonly<Record<RefusedRelease, number>> {
    return this.refusedCounts;
  }

  get(): Buffer {
    const reused = this.free.pop();
    if (reused) {
      const slot = this.slots.get(reused.buffer)!;
      slot.out = true;
      slot.leased = false;
      return reused;
    }
    const fresh = Buffer.allocUnsafeSlow(ChunkPool.SIZE);
    this.slots.set(fresh.buffer, { generation: 0, out: true, leased: false, retired: false });
    return fresh;
  }

  /**
   * A chunk goes into an answer: stamped with its buffer's generation. A
   * buffer gives one chunk per generation (JsonBytes.take and the report
   * writer move to a fresh buffer after each); a second would be freed by
   * the first chunk's release while still unsent, so its buffer is retired
   * instead (counted as `shared`).
   */
  lease(chunk: Buffer): Buffer {
    const slot = this.slots.get(chunk.buffer);
    if (!slot) return chunk;
    if (slot.leased) {
      slot.retired = true;
      this.refusedCounts.shared += 1;
    }
    slot.leased = true;
    this.stamps.set(chunk, slot.generation);
    return chunk;
  }

  /** A sent chunk: its buffer is written again, if the chunk still owns it (see the class). */
  release(chunk: Buffer): void {
    const slot = this.slots.get(chunk.buffer);
    // Not this pool's memory (a kept answer's bytes, a fresh buffer): nothing to give back.
    if (!slot) return;
    const stamp = this.stamps.get(chunk);
    // No stamp: released already (a stamp is dropped when its release is taken), or never put in an answer.
    if (stamp === undefined) {
      this.refusedCounts.twice += 1;
      return;
    }
    // An older generation: the buffer went back (another chunk of it was released) and may be out again.
    if (stamp !== slot.generation || !slot.out) {
      this.refusedCounts.stale += 1;
      return;
    }
    this.stamps.delete(chunk);
    slot.generation += 1;
    slot.out = false;
    if (slot.retired || this.free.length >= this.keep) return;
    const whole = Buffer.from(chunk.buffer, 0, ChunkPool.SIZE);
    if (this.poison) whole.fill(POISON);
    this.free.push(whole);
  }
}

/**
 * Pulls chunks until more than `upTo` bytes have come: a smaller answer is
 * answered whole, copied out of the pool's buffers (which go back to it at
 * once), and sent with its length; a larger one as the chunks pulled so far
 * followed by the rest, pulled as the socket takes them, each given back to
 * `pool` once sent. Every chunk is leased here (ChunkPool.lease), the one
 * place chunks go into answers. Null when there are none.
 */
export function piecesOrStream(chunks: Iterator<Buffer>, pool: ChunkPool, upTo = 256 * 1024): Buffer[] | DataStream | null {
  const head: Buffer[] = [];
  let size = 0;
  while (size <= upTo) {
    const next = chunks.next();
    if (next.done) {
      if (head.length === 0) return null;
      const whole = Buffer.concat(head, size);
      for (const chunk of head) pool.release(chunk);
      return [whole];
    }
    head.push(pool.lease(next.value));
    size += next.value.length;
  }
  return {
    chunks: {
      *[Symbol.iterator]() {
        // Handed over one by one: a sent chunk is not kept alive by this list.
        while (head.length > 0) yield head.shift()!;
        for (let next = chunks.next(); !next.done; next = chunks.next()) yield pool.lease(next.value);
      },
    },
    release: (chunk) => pool.release(chunk),
  };
}
