/**
 * Writes JSON text straight into bytes. An analysis answer runs to hundreds
 * of thousands of numbers; building a string first costs more than the
 * numbers themselves (string ropes, then a UTF-8 encoding pass over
 * megabytes). Integers — almost every counter — are written digit by digit.
 */
export class JsonBytes {
  private buf: Buffer;
  private pos = 0;

  constructor(initial = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** ASCII text as it is (punctuation, field prefixes, bucket labels: nothing to escape). */
  ascii(s: string): this {
    this.room(s.length);
    for (let i = 0; i < s.length; i++) this.buf[this.pos++] = s.charCodeAt(i);
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
    if (x === null) return this.ascii('null');
    if (!Number.isSafeInteger(x) || Object.is(x, -0)) return this.ascii(Number.isFinite(x) ? String(x) : 'null');
    this.room(17);
    if (x < 0) {
      this.buf[this.pos++] = 45; // '-'
      x = -x;
    }
    if (x < 10) {
      this.buf[this.pos++] = 48 + x;
      return this;
    }
    let digits = 1;
    for (let p = 10; p <= x; p *= 10) digits++;
    for (let i = this.pos + digits - 1; i >= this.pos; i--) {
      this.buf[i] = 48 + (x % 10);
      x = Math.floor(x / 10);
    }
    this.pos += digits;
    return this;
  }

  /** The bytes written (a view, not a copy). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  get length(): number {
    return this.pos;
  }
}
