import type { DataStream } from './envelope.js';

/** A chunk is handed over once it holds this much: big enough that a write per chunk costs little. */
export const CHUNK = 64 * 1024;

/**
 * Buffers answers' chunks are written in, used again once a chunk has been
 * sent (`release`, called by the sender when the socket or the compressor
 * is done with it). One pool serves every answer of the process
 * (`sharedChunks`): a month of hours by agent is then written in the same
 * few buffers of 256 kB ask after ask, instead of 26 MB of fresh ones a
 * time, or even a fresh 256 kB for every small answer; V8 frees such memory
 * only when a collection finds the buffers' wrappers, and until then it
 * counts in the process's memory (PRODUCT.md §8).
 */
export class ChunkPool {
  static readonly SIZE = 4 * CHUNK;
  private readonly free: Buffer[] = [];
  /** The memory this pool handed out: only that is taken back (a kept answer's bytes never are). */
  private readonly mine = new WeakSet<ArrayBufferLike>();

  /** `keep`: at most this many free buffers are held for later answers. */
  constructor(private readonly keep = 16) {}

  get(): Buffer {
    const reused = this.free.pop();
    if (reused) return reused;
    const fresh = Buffer.allocUnsafeSlow(ChunkPool.SIZE);
    this.mine.add(fresh.buffer);
    return fresh;
  }

  /** A sent chunk: its buffer is written again (one not from this pool, or already given back, is left alone). */
  release(chunk: Buffer): void {
    const memory = chunk.buffer;
    if (!this.mine.has(memory) || this.free.length >= this.keep || this.free.some((b) => b.buffer === memory)) return;
    this.free.push(Buffer.from(memory, 0, ChunkPool.SIZE));
  }
}

/** The pool every answer of the process writes its chunks in. */
export const sharedChunks = new ChunkPool();

/**
 * Pulls chunks until more than `upTo` bytes have come: a smaller answer is
 * answered whole, copied out of the pool's buffers (which go back to it at
 * once), and sent with its length; a larger one as the chunks pulled so far
 * followed by the rest, pulled as the socket takes them, each given back to
 * `pool` once sent. Null when there are none.
 */
export function piecesOrStream(chunks: Iterator<Buffer>, pool = sharedChunks, upTo = 256 * 1024): Buffer[] | DataStream | null {
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
    head.push(next.value);
    size += next.value.length;
  }
  return {
    chunks: {
      *[Symbol.iterator]() {
        // Handed over one by one: a sent chunk is not kept alive by this list.
        while (head.length > 0) yield head.shift()!;
        for (let next = chunks.next(); !next.done; next = chunks.next()) yield next.value;
      },
    },
    release: (chunk) => pool.release(chunk),
  };
}
