/**
 * Writes JSON text straight into bytes. An analysis answer runs to hundreds
 * of thousands of numbers; building a string first costs more than the
 * numbers themselves (string ropes, then a UTF-8 encoding pass over
 * megabytes). Integers — almost every counter — are written digit by digit;
 * anything else (averages, integers past 2^31) as String() writes it.
 */
/** The most bytes writeNumber writes (String() of a double: "-1.2345678901234567e-308" is 24). */
export const NUMBER_ROOM = 25;

/**
 * Writes a number at `pos` as JSON.stringify writes it (null for null and
 * non-finite numbers) and answers the position after it. The caller makes
 * room for NUMBER_ROOM bytes.
 */
export function writeNumber(buf: Uint8Array, pos: number, x: number | null): number {
  if (x === null) return writeAscii(buf, pos, 'null');
  // -0 passes (>= 0) and is written "0", as JSON.stringify writes it.
  if (!(x >= 0 && x <= 0x7fffffff && x === Math.floor(x))) {
    // Averages are rounded to hundredths: digits too, as String() writes them (String() costs ~0.6 µs
    // a number, and a month of hours by agent has 288,000 averages).
    if (x > 0 && x < 21_474_836) {
      const k = Math.round(x * 100);
      if (k / 100 === x) return writeHundredths(buf, pos, k);
    }
    return writeAscii(buf, pos, Number.isFinite(x) ? String(x) : 'null');
  }
  let n = x | 0;
  if (n < 10) {
    buf[pos] = 48 + n;
    return pos + 1;
  }
  const digits =
    n < 100 ? 2 : n < 1000 ? 3 : n < 10_000 ? 4 : n < 100_000 ? 5 : n < 1_000_000 ? 6 : n < 10_000_000 ? 7 : n < 100_000_000 ? 8 : n < 1_000_000_000 ? 9 : 10;
  const end = pos + digits;
  let i = end;
  while (n > 0) {
    const q = (n / 10) | 0;
    buf[--i] = 48 + n - q * 10;
    n = q;
  }
  return end;
}

/** k / 100 for k not a multiple of 100: the integer part, a point, one or two digits (no trailing zero). */
function writeHundredths(buf: Uint8Array, pos: number, k: number): number {
  const frac = k % 100;
  pos = writeNumber(buf, pos, (k - frac) / 100);
  buf[pos++] = 46;
  buf[pos++] = 48 + ((frac / 10) | 0);
  if (frac % 10 !== 0) buf[pos++] = 48 + (frac % 10);
  return pos;
}

/** Writes ASCII text (nothing to escape) at `pos` and answers the position after it; the caller makes room. */
export function writeAscii(buf: Uint8Array, pos: number, s: string): number {
  for (let i = 0; i < s.length; i++) buf[pos++] = s.charCodeAt(i);
  return pos;
}

export class JsonBytes {
  private buf: Buffer;
  private pos = 0;

  /** `initial`: the buffer to write in first, or its size. */
  constructor(initial: number | Buffer = 64 * 1024) {
    this.buf = typeof initial === 'number' ? Buffer.allocUnsafe(initial) : initial;
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** ASCII text as it is (punctuation, bucket labels: nothing to escape). */
  ascii(s: string): this {
    this.room(s.length);
    this.pos = writeAscii(this.buf, this.pos, s);
    return this;
  }

  /** Any string as a JSON string literal (escaped, UTF-8). */
  string(s: string): this {
    const text = JSON.stringify(s);
    this.room(Buffer.byteLength(text));
    this.pos += this.buf.write(text, this.pos, 'utf8');
    return this;
  }

  /** A number as JSON.stringify writes it; null for null. */
  number(x: number | null): this {
    this.room(NUMBER_ROOM);
    this.pos = writeNumber(this.buf, this.pos, x);
    return this;
  }

  /**
   * Room for `n` more bytes: the buffer to write them in from `length` on,
   * by hand (then `advance`). For writers that write many values at once.
   */
  reserve(n: number): Buffer {
    this.room(n);
    return this.buf;
  }

  /** Marks the bytes up to `pos` (written by hand after `reserve`) as written. */
  advance(pos: number): this {
    this.pos = pos;
    return this;
  }

  /** Bytes already written elsewhere (a kept day's span), copied in one go. */
  copy(bytes: Uint8Array): this {
    this.room(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
    return this;
  }

  /** Replaces the byte at `at` (already written) with an ASCII character. */
  put(at: number, ch: string): this {
    this.buf[at] = ch.charCodeAt(0);
    return this;
  }

  /** Drops what was written after the first `length` bytes. */
  truncate(length: number): this {
    this.pos = Math.min(this.pos, length);
    return this;
  }

  /**
   * The bytes written, handed over: the writer goes on in `next`, so the
   * taken ones may be sent while it writes on.
   */
  take(next: Buffer): Buffer {
    const out = this.buf.subarray(0, this.pos);
    this.buf = next;
    this.pos = 0;
    return out;
  }

  /** The bytes written (a view, not a copy). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  get length(): number {
    return this.pos;
  }
}
