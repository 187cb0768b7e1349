import type { Slot } from './model.js';

const SVG = 'http://www.w3.org/2000/svg';

function el(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** The last figures drawn, and a watch on the chart's size: drawn again at its new size (a layout switch, a resize). */
let drawn: { host: HTMLElement; slots: Slot[]; windowSecs: number; w: number; h: number } | null = null;
let watch: ResizeObserver | null = null;

function redrawIfResized(): void {
  if (!drawn) return;
  const { host, slots, windowSecs, w, h } = drawn;
  if (Math.round(host.clientWidth) !== w || Math.round(host.clientHeight) !== h) renderChart(host, slots, windowSecs);
}

/** Grouped bars per 30-second slot (queued, connected, abandoned), as SVG with a text alternative. */
export function renderChart(host: HTMLElement, slots: Slot[], windowSecs: number): void {
  if (!watch) {
    watch = new ResizeObserver(redrawIfResized);
    watch.observe(host);
  }
  // Drawn at the chart's size in CSS pixels, so the labels keep the size the style sheet gives them
  // (a scaled viewBox shrank them to 7-11 px); drawn again when that size changes.
  const W = Math.round(host.clientWidth) || 600;
  const H = Math.round(host.clientHeight) || 180;
  const font = parseFloat(getComputedStyle(host).fontSize) || 14;
  const pad = { l: Math.round(font * 2.2), r: 6, t: Math.round(font * 0.6), b: Math.round(font * 1.5) };
  const n = Math.max(slots.length, Math.ceil(windowSecs / 30), 1);
  const max = Math.max(1, ...slots.flatMap((s) => [s.queued, s.connected, s.abandoned]));
  const slotW = (W - pad.l - pad.r) / n;
  const barW = Math.max(1, (slotW - 4) / 3);
  const y = (v: number) => pad.t + (H - pad.t - pad.b) * (1 - v / max);

  const queued = slots.reduce((a, s) => a + s.queued, 0);
  const connected = slots.reduce((a, s) => a + s.connected, 0);
  const abandoned = slots.reduce((a, s) => a + s.abandoned, 0);
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', preserveAspectRatio: 'none' });
  svg.append(el('title', {}, `Last ${Math.round(windowSecs / 60)} minutes: ${queued} queued, ${connected} connected, ${abandoned} abandoned`));
  svg.append(el('text', { x: 2, y: pad.t + font * 0.8 }, String(max)), el('text', { x: 2, y: H - pad.b }, '0'));
  svg.append(el('line', { x1: pad.l, x2: W - pad.r, y1: H - pad.b, y2: H - pad.b, stroke: '#2c3342' }));
  // Oldest slot on the left; slots are drawn right-aligned so "now" is always at the right edge.
  const ordered = [...slots].sort((a, b) => a.time - b.time);
  const offset = n - ordered.length;
  ordered.forEach((s, i) => {
    const x0 = pad.l + (offset + i) * slotW + 2;
    (['queued', 'connected', 'abandoned'] as const).forEach((k, j) => {
      const v = s[k];
      if (v <= 0) return;
      svg.append(el('rect', { class: `bar-${k}`, x: x0 + j * barW, y: y(v), width: barW - 1, height: H - pad.b - y(v) }));
    });
  });
  svg.append(el('text', { x: W - pad.r, y: H - font * 0.3, 'text-anchor': 'end' }, 'now'));
  host.replaceChildren(svg);
  drawn = { host, slots, windowSecs, w: W, h: H };
}
