import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { theme } from '../lib/theme.js';

/**
 * A time series chart drawn by uPlot (small, fast, canvas; docs/console.md says why), with the
 * figures it drew kept on the element (`data-chart`, read by the browser tests and by nothing
 * else) and a caption saying what it shows, since a canvas says nothing to a screen reader; the
 * table under each chart holds the same figures. Drawn again at its new width and when the
 * theme changes (the colours are the style sheet's).
 */
export interface Series {
  label: string;
  values: Array<number | null>;
}

export interface ChartProps {
  /** What the chart shows, read out as its caption. */
  title: string;
  /** Unix seconds of each point. */
  x: number[];
  series: Series[];
  /** The y axis's unit, after the figures ("calls", "min"). */
  unit?: string;
}

/** Four palettes' worth of hues that keep 3:1 against both themes' cards. */
const COLOURS = {
  light: ['#0b57d0', '#146c2e', '#b3261e', '#8a4b00', '#6f3fb5'],
  dark: ['#8ab4f8', '#7ed89b', '#ffb4ab', '#ffb870', '#d0bcff'],
};

export function TimeChart({ title, x, series, unit }: ChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const dark = theme.value === 'dark';
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const css = getComputedStyle(document.documentElement);
    const text = css.getPropertyValue('--text').trim() || (dark ? '#eceff3' : '#1b1f24');
    const grid = css.getPropertyValue('--border').trim() || '#c9ced6';
    const colours = COLOURS[dark ? 'dark' : 'light'];
    const width = () => Math.max(260, Math.floor(el.clientWidth));
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
    const plot = new uPlot(
      {
        width: width(),
        height: 240,
        cursor: { show: true, drag: { x: false, y: false } },
        legend: { show: true, live: false },
        scales: { x: { time: true }, y: { range: (_u, min, max) => [Math.min(0, min ?? 0), Math.max(1, (max ?? 0) * 1.1)] } },
        axes: [axis, { ...axis, label: unit, size: 56 }],
        series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: colours[i % colours.length], width: 2, points: { show: x.length < 60 } }))],
      },
      [x, ...series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    );
    const resize = new ResizeObserver(() => {
      if (Math.abs(plot.width - width()) > 2) plot.setSize({ width: width(), height: 240 });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [JSON.stringify([x, series]), dark, unit]);
  const totals = series.map((s) => `${s.label} ${s.values.reduce<number>((a, v) => a + (v ?? 0), 0)}`).join(', ');
  return (
    <figure class="chart card">
      <figcaption>
        {title}
        <span class="note"> — {x.length === 0 ? 'no figures in this range' : `in all${unit ? ` (${unit})` : ''}: ${totals}`}</span>
      </figcaption>
      <div ref={host} data-chart={JSON.stringify({ x, series })} aria-hidden="true" />
    </figure>
  );
}
