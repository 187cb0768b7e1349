import { describe, expect, it } from 'vitest';
import { ChunkPool, POISON, piecesOrStream } from './chunk-pool.js';

/** A chunk as a producer makes it and piecesOrStream puts it in an answer. */
function leased(pool: ChunkPool, n: number, fill = 1): Buffer {
  return pool.lease(pool.get().fill(fill, 0, n).subarray(0, n));
}

describe('ChunkPool', () => {
  it('hands a sent chunk out again, and only its own memory', () => {
    const pool = new ChunkPool();
    const a = leased(pool, 100);
    pool.release(a);
    const b = pool.get();
    expect(b.buffer).toBe(a.buffer);
    expect(pool.get().buffer).not.toBe(a.buffer);
    // A kept answer's bytes of the same size are never taken for a chunk (they would be written over).
    const kept = Buffer.alloc(ChunkPool.SIZE, 7);
    pool.release(kept);
    const c = pool.get();
    expect(c.buffer).not.toBe(kept.buffer);
    c.fill(1);
    expect(kept.every((x) => x === 7)).toBe(true);
    expect(pool.refused).toEqual({ twice: 0, stale: 0, shared: 0 });
  });

  it('refuses and counts a second release: the buffer never has two owners', () => {
    const pool = new ChunkPool();
    const a = leased(pool, 100);
    pool.release(a);
    pool.release(a);
    expect(pool.refused.twice).toBe(1);
    const first = pool.get();
    expect(first.buffer).toBe(a.buffer);
    // Had the second release been taken, this would be the same buffer again.
    expect(pool.get().buffer).not.toBe(a.buffer);
  });

  it('refuses and counts a late release after the buffer was handed out again (another answer owns it)', () => {
    const pool = new ChunkPool();
    const mine = pool.get().fill(1, 0, 10);
    // Two chunks of one buffer in answers: the buffer is retired, whatever comes back first.
    const early = pool.lease(mine.subarray(0, 5));
    const late = pool.lease(mine.subarray(5, 10));
    expect(pool.refused.shared).toBe(1);
    pool.release(early);
    expect(pool.get().buffer).not.toBe(mine.buffer);
    pool.release(late);
    expect(pool.refused.stale).toBe(1);

    // A chunk released, its buffer handed to another answer, then the first chunk's view released again.
    const x = leased(pool, 10);
    pool.release(x);
    const other = pool.lease(pool.get().fill(2, 0, 10).subarray(0, 10));
    expect(other.buffer).toBe(x.buffer);
    pool.release(x);
    expect(pool.refused.twice).toBe(1);
    // The other answer still owns its bytes: the next buffer is a fresh one.
    expect(pool.get().buffer).not.toBe(other.buffer);
    expect(other.every((b) => b === 2)).toBe(true);
  });

  it('a chunk never put in an answer is not taken back', () => {
    const pool = new ChunkPool();
    const a = pool.get();
    pool.release(a.subarray(0, 10));
    expect(pool.refused.twice).toBe(1);
    expect(pool.get().buffer).not.toBe(a.buffer);
  });

  it('with poison, a released buffer is filled with 0xDB (a use after release shows)', () => {
    const pool = new ChunkPool({ poison: true });
    const a = leased(pool, 100, 65);
    pool.release(a);
    expect(a.every((b) => b === POISON)).toBe(true);
    const plain = new ChunkPool();
    const b = leased(plain, 100, 65);
    plain.release(b);
    expect(b.every((x) => x === 65)).toBe(true);
  });

  it('holds at most `keep` free buffers', () => {
    const pool = new ChunkPool({ keep: 2 });
    const taken = [leased(pool, 1), leased(pool, 1), leased(pool, 1)];
    for (const t of taken) pool.release(t);
    const again = [pool.get(), pool.get(), pool.get()];
    expect(again.filter((g) => taken.some((t) => t.buffer === g.buffer))).toHaveLength(2);
  });
});

describe('piecesOrStream', () => {
  function* chunksOf(pool: ChunkPool, sizes: number[]): Generator<Buffer> {
    for (const [i, n] of sizes.entries())
      yield pool
        .get()
        .fill(65 + i, 0, n)
        .subarray(0, n);
  }

  it('copies a small answer out and gives its chunks back at once', () => {
    const pool = new ChunkPool({ poison: true });
    const pieces = piecesOrStream(chunksOf(pool, [3, 2]), pool);
    expect(Array.isArray(pieces) && Buffer.concat(pieces).toString()).toBe('AAABB');
    // Both chunks went back: the next two are theirs, and writing them leaves the answer as it was.
    pool.get().fill(0);
    pool.get().fill(0);
    expect(Array.isArray(pieces) && Buffer.concat(pieces).toString()).toBe('AAABB');
    expect(pool.refused).toEqual({ twice: 0, stale: 0, shared: 0 });
  });

  it('streams a large answer, each chunk given back by the sender once sent', () => {
    const pool = new ChunkPool();
    const stream = piecesOrStream(chunksOf(pool, [200_000, 100_000, 5]), pool);
    expect(stream && !Array.isArray(stream)).toBe(true);
    if (!stream || Array.isArray(stream)) return;
    const sent: string[] = [];
    const buffers = new Set<ArrayBufferLike>();
    for (const chunk of stream.chunks) {
      sent.push(`${String.fromCharCode(chunk[0]!)}${chunk.length}`);
      buffers.add(chunk.buffer);
      stream.release?.(chunk);
    }
    expect(sent).toEqual(['A200000', 'B100000', 'C5']);
    expect(pool.refused).toEqual({ twice: 0, stale: 0, shared: 0 });
    // Every buffer went back.
    expect(buffers.has(pool.get().buffer)).toBe(true);
  });
});
