import { ApiError, type Authed } from './api.js';
import { byId, h } from './dom.js';

/** Today's figures of one group, as report/queue defines them (docs/reports.md). */
export interface TodayRow {
  groupId: string;
  offered: number;
  serviceLevel: number | null;
  abandonRate: number | null;
  asa: number | null;
  /** Agents the current half hour needs (staffing/plan); null when unknown. */
  needed: number | null;
}

/** The threshold of the board's service level (seconds): the reports' default. */
export const TODAY_SL = 20;

/** The target the board plans with: 80 % within 20 s (no account setting names one; docs/staffing.md). */
export const PLAN_TARGET = { serviceLevel: 80, seconds: TODAY_SL };

/** The plan's answer for the current half hour, kept until it ends: it changes only with the half hour (the history is past). */
let planKept: { until: number; needed: Map<string, number | null> } | null = null;

/** Forgets the kept plan: another session (account) starts, or the board reloads everything after a reset. */
export function forgetPlan(): void {
  planKept = null;
}

/**
 * The agents the current half hour needs per group: staffing/plan for
 * today by 30 minutes (the forecast from the same weekday of the last four
 * weeks), the row holding now; asked once per half hour, not at every
 * refresh. Empty when the plan cannot be read (asked again in a minute).
 */
async function loadNeeded(api: Authed, now: number, signal: AbortSignal): Promise<Map<string, number | null>> {
  if (planKept && now < planKept.until) return planKept.needed;
  const needed = new Map<string, number | null>();
  let until = now + 60;
  try {
    const res = await api<{ data: Array<{ groupId: number; start: number; end: number; agents: number | null }> }>(
      'staffing/plan',
      { date: now, interval: '30m', target: PLAN_TARGET },
      signal,
    );
    for (const r of res.data)
      if (r.start <= now && now < r.end) {
        needed.set(String(r.groupId), r.agents);
        until = r.end;
      }
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
  }
  planKept = { until, needed };
  return needed;
}

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
    const [res, needed] = await Promise.all([
      api<{ data: Array<Record<string, unknown>> }>('report/queue', { from: now - 86400, to: now, interval: 'day', slThresholds: [TODAY_SL] }, signal),
      loadNeeded(api, now, signal),
    ]);
    const last = new Map<string, Record<string, unknown>>();
    for (const r of res.data) last.set(String(r.groupId), r); // rows come ordered by group, then start
    const num = (v: unknown) => (typeof v === 'number' ? v : null);
    return [...last.entries()].map(([groupId, r]) => ({
      groupId,
      offered: num(r.offered) ?? 0,
      serviceLevel: num((r.serviceLevel as Record<string, unknown> | undefined)?.[String(TODAY_SL)]),
      abandonRate: num(r.abandonRate),
      asa: num(r.asa),
      needed: needed.get(groupId) ?? null,
    }));
  } catch (err) {
    if (err instanceof ApiError && err.code === 1015) return null;
    throw err;
  }
}

const pct = (v: number | null) => (v === null ? '—' : `${Math.round(v)}%`);

/**
 * The "Today" panel: one row per group (the selected one only, when a group
 * is chosen); beside the agents the current half hour needs, those logged in
 * now (`loggedIn`, from Agent/live's lA per group).
 */
export function renderToday(rows: TodayRow[] | null, groupId: string, groupNames: Map<string, string>, loggedIn: Map<string, number>): void {
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
              h('td', { 'data-figure': 'needed' }, r.needed === null ? '—' : String(r.needed)),
              h(
                'td',
                {
                  'data-figure': 'logged-in',
                  class: r.needed !== null && loggedIn.has(r.groupId) && loggedIn.get(r.groupId)! < r.needed ? 'alert' : '',
                },
                loggedIn.has(r.groupId) ? String(loggedIn.get(r.groupId)) : '—',
              ),
            ),
          )
        : [h('tr', {}, h('td', { colspan: 7 }, 'No calls today.'))]),
    );
}
