/**
 * `bytes` kept at (about) their own size, for a cache whose budget counts
 * their length: not in a much larger buffer they were written into (a
 * writer's buffer sized for the worst case), nor in Node's shared 8 kB pool,
 * which every small `Buffer.from` comes from and which a kept slice would
 * keep alive whole. A buffer of their own with at most a quarter unused is
 * kept as it is: copying a month of hours (26 MB) costs ~20 ms and as much
 * in page faults.
 */
export function ownedBytes(bytes: Buffer): Buffer {
  if (bytes.length >= 4096 && bytes.byteOffset === 0 && bytes.length >= bytes.buffer.byteLength * 0.75) return bytes;
  const own = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(own);
  return own;
}

/**
 * Texts as bytes in one allocation of their own: a view per text, all kept
 * alive together (a kept day's rows, written together, evicted together).
 */
export function ownedTexts(texts: string[]): Buffer[] {
  let total = 0;
  for (const t of texts) total += Buffer.byteLength(t);
  const all = Buffer.allocUnsafeSlow(total);
  const out: Buffer[] = [];
  let at = 0;
  for (const t of texts) {
    const n = all.write(t, at);
    out.push(all.subarray(at, at + n));
    at += n;
  }
  return out;
}
