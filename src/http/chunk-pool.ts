import type { DataStream } from './envelope.js';

/** A chunk is handed over once it holds this much: big enough that a write per chunk costs little. */
export const CHUNK = 64 * 1024;

/**
 * The buffers one answer's chunks are written in, used again once a chunk
 * has been sent (`release`, called by the sender when the socket or the
 * compressor is done with it): a month of hours by agent is then a few
 * buffers of 256 kB instead of 26 MB of fresh ones, which V8 frees only
 * when a collection finds their wrappers (until then they count in the
 * process's memory).
 */
export class ChunkPool {
  static readonly SIZE = 4 * CHUNK;
  private readonly free: Buffer[] = [];

  get(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafeSlow(ChunkPool.SIZE);
  }

  /** A sent chunk: its buffer is written again (one that grew past SIZE, or a constant, is left alone). */
  release(chunk: Buffer): void {
    if (chunk.byteOffset !== 0 || chunk.buffer.byteLength !== ChunkPool.SIZE || this.free.length >= 4) return;
    this.free.push(Buffer.from(chunk.buffer, 0, ChunkPool.SIZE));
  }
}

/**
 * Pulls chunks until more than `upTo` bytes have come: a smaller answer is
 * answered as its pieces (sent with its length), a larger one as the chunks
 * pulled so far followed by the rest, pulled as the socket takes them, each
 * given back to `pool` once sent. Null when there are none.
 */
export function piecesOrStream(chunks: Iterator<Buffer>, pool?: ChunkPool, upTo = 256 * 1024): Buffer[] | DataStream | null {
  const head: Buffer[] = [];
  let size = 0;
  while (size <= upTo) {
    const next = chunks.next();
    if (next.done) return head.length > 0 ? head : null;
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
    release: pool && ((chunk) => pool.release(chunk)),
  };
}
