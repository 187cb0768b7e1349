import { ApiError, type Authed } from './api.js';
import { byId, h } from './dom.js';

/** Today's figures of one group, as report/queue defines them (docs/reports.md). */
export interface TodayRow {
  groupId: string;
  offered: number;
  serviceLevel: number | null;
  abandonRate: number | null;
  asa: number | null;
}

/** The threshold of the board's service level (seconds): the reports' default. */
export const TODAY_SL = 20;

/**
 * Today's service level, abandonment rate and ASA per group, read from
 * report/queue so the board and the reports never disagree. The range is
 * the last 24 hours by day in the account's zone: the last row of each group
 * is the account-local day that holds now. null when the session may not
 * read reports (analysis.view): the panel stays hidden.
 */
export async function loadToday(api: Authed, signal: AbortSignal): Promise<TodayRow[] | null> {
  const now = Math.floor(Date.now() / 1000);
  try {
    const res = await api<{ data: Array<Record<string, unknown>> }>(
      'report/queue',
      { from: now - 86400, to: now, interval: 'day', slThresholds: [TODAY_SL] },
      signal,
    );
    const last = new Map<string, Record<string, unknown>>();
    for (const r of res.data) last.set(String(r.groupId), r); // rows come ordered by group, then start
    const num = (v: unknown) => (typeof v === 'number' ? v : null);
    return [...last.entries()].map(([groupId, r]) => ({
      groupId,
      offered: num(r.offered) ?? 0,
      serviceLevel: num((r.serviceLevel as Record<string, unknown> | undefined)?.[String(TODAY_SL)]),
      abandonRate: num(r.abandonRate),
      asa: num(r.asa),
    }));
  } catch (err) {
    if (err instanceof ApiError && err.code === 1015) return null;
    throw err;
  }
}

const pct = (v: number | null) => (v === null ? '—' : `${Math.round(v)}%`);

/** The "Today" panel: one row per group (the selected one only, when a group is chosen). */
export function renderToday(rows: TodayRow[] | null, groupId: string, groupNames: Map<string, string>): void {
  const section = byId('today');
  section.hidden = rows === null;
  if (rows === null) return;
  const shown = rows.filter((r) => !groupId || r.groupId === groupId);
  byId('today-table')
    .querySelector('tbody')!
    .replaceChildren(
      ...(shown.length
        ? shown.map((r) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, groupNames.get(r.groupId) ?? `Group ${r.groupId}`),
              h('td', {}, String(r.offered)),
              h('td', { class: r.serviceLevel !== null && r.serviceLevel < 80 ? 'alert' : '' }, pct(r.serviceLevel)),
              h('td', {}, pct(r.abandonRate)),
              h('td', {}, r.asa === null ? '—' : `${Math.round(r.asa)} s`),
            ),
          )
        : [h('tr', {}, h('td', { colspan: 5 }, 'No calls today.'))]),
    );
}
