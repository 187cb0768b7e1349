import type { Clock } from '../../clock.js';
import { tenant } from '../../db/tenant.js';
import type { Database } from '../../db/types.js';
import { AppError, fail } from '../../errors/catalogue.js';
import type { AccountService } from '../account/account.service.js';
import { MAX_ROWS, tooManyRows } from '../report/answers/report-day-answers.js';
import { round2 } from '../report/figures.js';
import { intervalsOf, QUARTER, type IntervalName } from '../report/intervals.js';
import { quarterRange } from '../report/report.request.js';
import type { ReportService } from '../report/report.service.js';
import { CampaignRepository } from './campaign.repository.js';
import { campaignOf, type Campaign } from './campaign.service.js';
import type { ContactListsPort } from './contact-lists.port.js';
import { DialerRepository } from './dialer.repository.js';
import { FiguresRepository, type DialFacts } from './figures.repository.js';

/** A `queue/count` `data.campId[]` row (PRODUCT.md §13). */
export interface CampIdRow {
  key: string;
  add: number;
  drop: number;
  con: number;
  pen: number;
  process: number;
}

export interface CampaignReportInput {
  campaignId?: number;
  from: number | string;
  to: number | string;
  interval: IntervalName;
}

export interface CampaignReportRow {
  campaignId: number;
  start: number;
  end: number;
  dialled: number;
  humanAnswered: number;
  machine: number;
  noAnswer: number;
  busy: number;
  failed: number;
  connected: number;
  abandoned: number;
  abandonRate: number | null;
  contactRate: number | null;
  avgConnectWait: number | null;
  aht: number | null;
  dispositions: Record<string, number>;
  agentTalkShare: number | null;
}

/** Contacts of the campaign dialable now: due in the dialer's state, and those of its lists not read in yet (as campaign/status). */
export async function dialableNow(db: Database, lists: ContactListsPort, accountId: number, c: Campaign, now: number): Promise<number> {
  const s = await new DialerRepository(tenant(db, accountId)).contactStates(c.campaignId, now, c.maxAttempts);
  const counts = await lists.contactCounts(accountId, c.clIds);
  return s.due + Math.max(0, counts.live - s.rows);
}

const pct = (part: number, whole: number) => (whole > 0 ? round2((part / whole) * 100) : null);
const avg = (sum: number, n: number) => (n > 0 ? round2(sum / n) : null);

/** The sums of one campaign and interval. */
class Sums {
  dialled = 0;
  human = 0;
  machine = 0;
  noAnswer = 0;
  busy = 0;
  failed = 0;
  connected = 0;
  abandoned = 0;
  waitSum = 0;
  waitN = 0;
  handleSum = 0;
  handleN = 0;
  readonly dispositions: Record<string, number> = {};

  add(d: DialFacts): void {
    const n = (v: number | null) => (v === null ? null : Number(v));
    this.dialled++;
    const human = d.answered_by === 'human' || (d.outcome === 'abandoned' && d.answered_by === null);
    if (human) this.human++;
    if (d.answered_by === 'machine') this.machine++;
    if (d.outcome === 'no_answer') this.noAnswer++;
    if (d.outcome === 'busy') this.busy++;
    if (d.outcome === 'failed') this.failed++;
    if (d.outcome === 'abandoned') this.abandoned++;
    const agentAt = n(d.agent_answered_at);
    const connectedAt = n(d.connected_at);
    const endedAt = n(d.ended_at);
    const connected = agentAt !== null && d.answered_by !== null && (d.outcome === null || d.outcome === 'answered');
    if (connected) {
      this.connected++;
      // Human answer to agent answer: 0 when the agent was there first (progressive, preview).
      if (d.answered_by === 'human' && connectedAt !== null) {
        this.waitSum += Math.max(0, agentAt - connectedAt);
        this.waitN++;
      }
      // Handled from the moment both were on the line to the end (talk + hold), then the agent's wrap-up of the call.
      if (endedAt !== null) {
        this.handleSum += Math.max(0, endedAt - Math.max(agentAt, connectedAt ?? agentAt)) + Number(d.wrap_secs ?? 0);
        this.handleN++;
      }
    }
    if (d.disposition !== null) this.dispositions[d.disposition] = (this.dispositions[d.disposition] ?? 0) + 1;
  }
}

export interface CampaignFiguresServiceDeps {
  db: Database;
  clock: Clock;
  accounts: AccountService;
  lists: ContactListsPort;
  reports: ReportService;
}

/**
 * The campaign figures of PRODUCT.md §13 (docs/campaigns.md "Figures"):
 * queue/count's `campId[]` and report/campaign, both from the dials
 * (`campaign_calls`), not from the queue: a dial that never reached a queue
 * counts.
 */
export class CampaignFiguresService {
  private readonly db: Database;

  constructor(private readonly d: CampaignFiguresServiceDeps) {
    this.db = d.db;
  }

  /**
   * queue/count `campId[]` over the trailing window from `since`: `add` dialled,
   * `drop` abandoned, `con` connected to an agent (of the dials of the window),
   * `pen` dialable now, `process` calls in progress (`since` may be fractional: dialled_at is whole seconds). Every campaign running or
   * paused, and any other with a dial in the window or a call in progress.
   */
  async campIdCounts(accountId: number, since: number, now: number): Promise<CampIdRow[]> {
    const t = tenant(this.db, accountId);
    const figures = new FiguresRepository(t);
    const [dials, progress, campaigns] = await Promise.all([figures.dialsSince(Math.floor(since)), figures.inProgress(), new CampaignRepository(t).list()]);
    const rows = new Map<number, CampIdRow>();
    const row = (id: number) => {
      let r = rows.get(id);
      if (!r) rows.set(id, (r = { key: String(id), add: 0, drop: 0, con: 0, pen: 0, process: 0 }));
      return r;
    };
    for (const c of campaigns) if (c.state === 'running' || c.state === 'paused') row(Number(c.campaign_id));
    for (const d of dials) {
      const r = row(Number(d.campaign_id));
      r.add = Number(d.dialled);
      r.drop = Number(d.abandoned ?? 0);
      r.con = Number(d.connected ?? 0);
    }
    for (const p of progress) row(Number(p.campaign_id)).process = Number(p.n);
    for (const c of campaigns) {
      const r = rows.get(Number(c.campaign_id));
      if (r) r.pen = await dialableNow(this.db, this.d.lists, accountId, campaignOf(c), Math.floor(now));
    }
    return [...rows.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r);
  }

  /** report/campaign (PRODUCT.md §13 with §11's conventions): per campaign and interval; rows by campaignId, then start. */
  async report(accountId: number, q: CampaignReportInput): Promise<CampaignReportRow[]> {
    const { timezone: tz } = await this.d.accounts.settings(accountId);
    const range = quarterRange(q.from, q.to, tz);
    const t = tenant(this.db, accountId);
    const campaigns = (await new CampaignRepository(t).list()).map(campaignOf);
    if (q.campaignId !== undefined && !campaigns.some((c) => c.campaignId === q.campaignId)) throw fail(1012, `campaign ${q.campaignId}`);
    const { intervals, bucketIndex } = intervalsOf(range.start, range.end, q.interval, tz);
    const dials = await new FiguresRepository(t).dials(range.start, range.end, q.campaignId ?? null);
    // Every campaign of the account, and a deleted one whose dials are in the range (its calls stay).
    const keys = new Set(q.campaignId !== undefined ? [q.campaignId] : campaigns.map((c) => c.campaignId));
    for (const d of dials) keys.add(Number(d.campaign_id));
    if (keys.size * intervals.length > MAX_ROWS) throw tooManyRows();
    const sums = new Map<number, Sums[]>();
    for (const k of keys)
      sums.set(
        k,
        intervals.map(() => new Sums()),
      );
    for (const d of dials) {
      const i = bucketIndex[Math.floor((Number(d.dialled_at) - range.start) / QUARTER)]!;
      sums.get(Number(d.campaign_id))![i]!.add(d);
    }
    const share = await this.talkShares(accountId, q, campaigns, keys);
    const rows: CampaignReportRow[] = [];
    for (const k of [...keys].sort((a, b) => a - b)) {
      const byStart = share.get(k);
      intervals.forEach((iv, i) => {
        const s = sums.get(k)![i]!;
        const talk = byStart?.get(iv.start);
        rows.push({
          campaignId: k,
          start: iv.start,
          end: iv.end,
          dialled: s.dialled,
          humanAnswered: s.human,
          machine: s.machine,
          noAnswer: s.noAnswer,
          busy: s.busy,
          failed: s.failed,
          connected: s.connected,
          abandoned: s.abandoned,
          abandonRate: pct(s.abandoned, s.human),
          contactRate: pct(s.human, s.dialled),
          avgConnectWait: avg(s.waitSum, s.waitN),
          aht: avg(s.handleSum, s.handleN),
          dispositions: s.dispositions,
          agentTalkShare: talk ? pct(talk.talk, talk.login) : null,
        });
      });
    }
    return rows;
  }

  /** Per campaign and interval start: the talk and logged-in time of its group's agents (report/agent's figures). */
  private async talkShares(accountId: number, q: CampaignReportInput, campaigns: Campaign[], keys: Set<number>) {
    const byGroup = new Map<number, Map<number, { talk: number; login: number }>>();
    const out = new Map<number, Map<number, { talk: number; login: number }>>();
    for (const c of campaigns) {
      if (!keys.has(c.campaignId)) continue;
      let g = byGroup.get(c.groupId);
      if (!g) {
        g = new Map();
        try {
          for (const r of await this.d.reports.agent(accountId, { from: q.from, to: q.to, groupId: c.groupId, interval: q.interval })) {
            const cur = g.get(r.start) ?? { talk: 0, login: 0 };
            cur.talk += Number(r.talkTime);
            cur.login += Number(r.loginTime);
            g.set(r.start, cur);
          }
        } catch (err) {
          // A group deleted since: no agents to count.
          if (!(err instanceof AppError && err.code === 1006)) throw err;
        }
        byGroup.set(c.groupId, g);
      }
      out.set(c.campaignId, g);
    }
    return out;
  }
}
