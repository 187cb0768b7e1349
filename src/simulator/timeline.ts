/** A min-heap of scheduled items by time; items at the same time come out in the order they were pushed. */
export class Timeline<T> {
  private heap: { at: number; seq: number; item: T }[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  clear(): void {
    this.heap = [];
  }

  push(at: number, item: T): void {
    const h = this.heap;
    h.push({ at, seq: this.seq++, item });
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  /** The earliest item due at or before `until`, removed; undefined when none is due. */
  pop(until: number): { at: number; item: T } | undefined {
    const h = this.heap;
    if (!h.length || h[0]!.at > until) return undefined;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.less(l, m)) m = l;
        if (r < h.length && this.less(r, m)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return { at: top.at, item: top.item };
  }

  private less(a: number, b: number): boolean {
    const x = this.heap[a]!;
    const y = this.heap[b]!;
    return x.at < y.at || (x.at === y.at && x.seq < y.seq);
  }
}
