import type { Clock } from '../../clock.js';
import { AppError } from '../../errors/catalogue.js';
import type { AccountService } from '../account/account.service.js';
import type { GroupService } from '../group/group.service.js';
import { round2 } from '../report/figures.js';
import { instant } from '../report/report.request.js';
import type { QueueVolume, ReportService } from '../report/report.service.js';
import { erlangAnswer, type ErlangFigures, type ErlangInput } from './erlang-answer.js';
import { History, PLAN_SECONDS, daySpan, dayIntervals, wallMidnightOf, weeksBefore, type DayInterval, type PlanInterval } from './plan-days.js';

export interface PlanInput extends Omit<ErlangInput, 'offered' | 'intervalMinutes' | 'aht'> {
  date: number | string;
  groupId?: number;
  interval: PlanInterval;
  weeks?: number;
}

export interface PlanRow {
  groupId: number;
  start: number;
  end: number;
  forecastOffered: number;
  forecastAht: number | null;
  agents: number | null;
  scheduled: number | null;
  offered: number | null;
  loggedIn: number | null;
  gap: number | null;
}

export interface StaffingServiceDeps {
  clock: Clock;
  accounts: AccountService;
  groups: GroupService;
  reports: ReportService;
}

/**
 * Staffing (PRODUCT.md §14, docs/staffing.md): how many agents an interval
 * needs by Erlang C or Erlang A, and a day's plan from the history that
 * report/queue and report/agent read (the report module's roll-ups).
 */
export class StaffingService {
  constructor(private readonly deps: StaffingServiceDeps) {}

  /** staffing/erlang: one interval's answer; pure arithmetic, no account data. */
  erlang(q: ErlangInput): { data: ErlangFigures } {
    return { data: erlangAnswer(q) };
  }

  /**
   * staffing/plan: per group and interval of the local day of `date`, the
   * forecast from the same weekday of the `weeks` weeks before, the agents
   * it needs, and for the intervals already over what came and who was there.
   */
  async plan(accountId: number, q: PlanInput): Promise<PlanRow[]> {
    const { reports } = this.deps;
    const { timezone: tz } = await this.deps.accounts.settings(accountId);
    const midnight = wallMidnightOf(tz, instant(q.date, tz, 'from'));
    const weeks = q.weeks ?? 4;
    const groupId = q.groupId ?? null;
    if (groupId !== null && !(await this.deps.groups.exists(accountId, groupId))) throw new AppError(1006, `Group id does not exist: ${groupId}`);
    const seconds = PLAN_SECONDS[q.interval];
    const day = daySpan(tz, midnight);
    const plan = dayIntervals(tz, day, midnight, seconds);

    // The same weekday of each week before: every quarter hour, matched to the plan by its wall-clock interval.
    const days: Array<{ intervals: DayInterval[]; volumes: Map<number, QueueVolume[]> }> = [];
    for (let k = 1; k <= weeks; k++) {
      const m = weeksBefore(midnight, k);
      const span = daySpan(tz, m);
      days.push({ intervals: dayIntervals(tz, span, m, seconds), volumes: await reports.queueVolumes(accountId, span, groupId) });
    }
    // The group's AHT over the whole weeks: the fallback of an interval without answered calls.
    const weeksSpan = { start: daySpan(tz, weeksBefore(midnight, weeks)).start, end: day.start };
    const totals = await reports.queueVolumeTotals(accountId, weeksSpan, groupId);

    const now = this.deps.clock.now() / 1000;
    const passed = plan.some((iv) => iv.end <= now);
    const actual = passed ? await reports.queueVolumes(accountId, day, groupId) : new Map<number, QueueVolume[]>();
    const keys = await reports.reportGroups(accountId, groupId);
    const groups = [...new Set([...keys, ...days.flatMap((d) => [...d.volumes.keys()]), ...totals.keys(), ...actual.keys()])].sort((a, b) => a - b);
    const login = passed ? await reports.groupLoginByQuarter(accountId, day, groups) : new Map<number, number[]>();

    const rows: PlanRow[] = [];
    for (const g of groups) {
      // Every day counts for every group: a day without its calls is a 0 in the mean.
      const h = new History();
      for (const d of days) h.addDay(d.intervals, d.volumes.get(g) ?? []);
      const total = totals.get(g);
      const groupAht = total && total.answered > 0 ? round2(total.handle / total.answered) : null;
      for (const iv of plan) {
        const f = h.of(iv.label);
        const forecastOffered = round2(f.offered)!;
        const forecastAht = f.answered > 0 ? round2(f.handle / f.answered) : groupAht;
        const need = this.agentsFor(iv, forecastOffered, forecastAht, q);
        const over = iv.end <= now;
        const offered = over ? sumOf(iv, (i) => actual.get(g)?.[i]?.offered ?? 0) : null;
        const loggedIn = over ? round2(sumOf(iv, (i) => login.get(g)?.[i] ?? 0) / (iv.end - iv.start)) : null;
        const gap = loggedIn !== null && need.agents !== null ? round2(loggedIn - need.agents) : null;
        rows.push({ groupId: g, start: iv.start, end: iv.end, forecastOffered, forecastAht, ...need, offered, loggedIn, gap });
      }
    }
    return rows;
  }

  /** The Erlang answer for the forecast as shown (2 decimals, so staffing/erlang with the same figures agrees); 0 without calls, null without an AHT. */
  private agentsFor(iv: DayInterval, offered: number, aht: number | null, q: PlanInput): { agents: number | null; scheduled: number | null } {
    if (aht === null) return offered === 0 ? { agents: 0, scheduled: 0 } : { agents: null, scheduled: null };
    if (offered === 0 || aht === 0) return { agents: 0, scheduled: 0 };
    const { target, shrinkage, maxOccupancy, patience } = q;
    const e = erlangAnswer({ offered, aht, intervalMinutes: (iv.end - iv.start) / 60, target, shrinkage, maxOccupancy, patience });
    return { agents: e.agents, scheduled: e.scheduled };
  }
}

function sumOf(iv: DayInterval, at: (quarter: number) => number): number {
  let s = 0;
  for (let i = iv.first; i < iv.first + iv.quarters; i++) s += at(i);
  return s;
}
