/**
 * An answer gathered as pieces to send one after another (send-answer.ts
 * `sendPieces`, streamed-answer.ts `sendCompressedPieces`). Spans of 1 kB and
 * more stay views of the bytes they were written in; smaller ones (key
 * headers, closing braces, a key's few buckets of a day) are copied together
 * into 64 kB chunks: a write per piece costs more than copying a few hundred
 * bytes, and 5,000 agents × 30 days would otherwise be 160,000 writes. Used
 * by analysis/hits and the reports' kept days.
 */
export class AnswerPieces {
  readonly list: Buffer[] = [];
  private chunk: Buffer = Buffer.alloc(0);
  private start = 0;
  private pos = 0;

  add(bytes: Buffer): void {
    if (bytes.length >= 1024) {
      this.cut();
      this.list.push(bytes);
      return;
    }
    if (this.pos + bytes.length > this.chunk.length) {
      this.cut();
      this.chunk = Buffer.allocUnsafeSlow(64 * 1024);
      this.start = this.pos = 0;
    }
    this.pos += bytes.copy(this.chunk, this.pos);
  }

  /** Ends the small pieces gathered since the last cut as one piece. */
  cut(): void {
    if (this.pos > this.start) this.list.push(this.chunk.subarray(this.start, this.pos));
    this.start = this.pos;
  }
}
