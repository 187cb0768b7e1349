import { describe, expect, it } from 'vitest';
import { ChunkPool, piecesOrStream } from './chunk-pool.js';

describe('ChunkPool', () => {
  it('hands a sent chunk out again, and only its own memory, once', () => {
    const pool = new ChunkPool();
    const a = pool.get();
    pool.release(a.subarray(0, 100));
    pool.release(a.subarray(0, 200)); // given back twice: must not be handed to two writers
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
  });

  it('holds at most `keep` free buffers', () => {
    const pool = new ChunkPool(2);
    const taken = [pool.get(), pool.get(), pool.get()];
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
    const pool = new ChunkPool();
    const pieces = piecesOrStream(chunksOf(pool, [3, 2]), pool);
    expect(Array.isArray(pieces) && Buffer.concat(pieces).toString()).toBe('AAABB');
    // Both chunks went back: the next two are theirs, and writing them leaves the answer as it was.
    pool.get().fill(0);
    pool.get().fill(0);
    expect(Array.isArray(pieces) && Buffer.concat(pieces).toString()).toBe('AAABB');
  });

  it('streams a large answer, each chunk given back by the sender once sent', () => {
    const pool = new ChunkPool();
    const stream = piecesOrStream(chunksOf(pool, [200_000, 100_000, 5]), pool);
    expect(stream && !Array.isArray(stream)).toBe(true);
    if (!stream || Array.isArray(stream)) return;
    const sent: string[] = [];
    for (const chunk of stream.chunks) {
      sent.push(`${String.fromCharCode(chunk[0]!)}${chunk.length}`);
      stream.release?.(chunk);
    }
    expect(sent).toEqual(['A200000', 'B100000', 'C5']);
  });
});
