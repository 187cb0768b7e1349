import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { explain } from '../lib/errors.js';
import { duration, percent, when } from '../lib/format.js';
import { api } from '../lib/session.js';
import { Status, Table, type Column } from '../lib/ui.js';
import { TimeChart, type Series } from './chart.js';
import { downloadReportCsv } from './download.js';
import { nameOf, Picker, useLookup } from './lookups.js';
import { apiRange, defaultRange, RangeForm, type Range } from './range.js';
import { useSubPage } from './subpage.js';

/**
 * Reports (docs/console.md): report/queue, report/agent, report/abandoned (the callback worklist),
 * report/campaign and analysis/hits over a chosen range, each as a chart (uPlot) and a table, the
 * reports with their CSV download (the operation with `format: "csv"`). `#/reports/<report>`.
 */
const REPORTS: Array<[string, string]> = [
  ['queue', 'Queues'],
  ['agent', 'Agents'],
  ['abandoned', 'Abandoned calls'],
  ['campaign', 'Campaigns'],
  ['hits', 'Hits'],
];

export default function Reports() {
  const kind = useSubPage('reports', REPORTS[0]![0]);
  const title = REPORTS.find(([id]) => id === kind)?.[1] ?? REPORTS[0]![1];
  return (
    <>
      <nav aria-label="Reports" class="subnav">
        <ul>
          {REPORTS.map(([id, label]) => (
            <li>
              <a href={`#/reports/${id}`} aria-current={id === kind ? 'page' : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <h2>{title}</h2>
      {kind === 'agent' ? (
        <AgentReport key="agent" />
      ) : kind === 'abandoned' ? (
        <AbandonedReport key="abandoned" />
      ) : kind === 'campaign' ? (
        <CampaignReport key="campaign" />
      ) : kind === 'hits' ? (
        <HitsReport key="hits" />
      ) : (
        <QueueReport key="queue" />
      )}
    </>
  );
}

/** Posts `path` with `body` whenever the body changes; the answer's rows, or the error as a sentence. */
function useRows<T>(path: string, body: Record<string, unknown> | null, pick: (res: Record<string, unknown>) => T[] = (r) => r.data as T[]) {
  const [rows, setRows] = useState<T[] | null>(null);
  const [status, setStatus] = useState('');
  const key = JSON.stringify(body);
  useEffect(() => {
    if (!body) return;
    const abort = new AbortController();
    setStatus('Loading…');
    api(path, body, abort.signal)
      .then((res) => {
        const r = pick(res);
        setRows(r);
        setStatus(`${r.length} rows`);
      })
      .catch((err: Error) => {
        if (err.name === 'AbortError') return;
        // 1586: analysis/hits found no call in the range: an empty answer, not a failure.
        if ((err as { code?: number }).code === 1586) {
          setRows([]);
          return setStatus('No calls in this range.');
        }
        setRows([]);
        setStatus(explain(err).text);
      });
    return () => abort.abort();
  }, [path, key]);
  return { rows, status };
}

/** Sums `fields` of the rows of each interval start (over groups, agents…), scaled (seconds → minutes). */
function perStart<T extends { start: number }>(rows: T[], fields: Array<[keyof T & string, string]>, scale = 1): { x: number[]; series: Series[] } {
  const starts = [...new Set(rows.map((r) => r.start))].sort((a, b) => a - b);
  const index = new Map(starts.map((s, i) => [s, i]));
  const series = fields.map(([f, label]) => {
    const values = starts.map(() => 0);
    for (const r of rows) values[index.get(r.start)!]! += Number(r[f] ?? 0);
    return { label, values: values.map((v) => Math.round((v / scale) * 100) / 100) };
  });
  return { x: starts, series };
}

function CsvButton({ path, body, filename, onDone }: { path: string; body: Record<string, unknown>; filename: string; onDone(text: string): void }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      class="secondary"
      data-csv={path}
      disabled={busy}
      onClick={async () => {
        setBusy(true);
        try {
          const text = await downloadReportCsv(path, body, filename);
          onDone(`Downloaded ${filename}: ${Math.max(0, text.trim().split(/\r?\n/).length - 1)} rows.`);
        } catch (err) {
          onDone(explain(err).text);
        } finally {
          setBusy(false);
        }
      }}
    >
      Download CSV
    </button>
  );
}

/** The frame every report shares: its range form, status line, chart, CSV button and table. */
function Frame({
  id,
  range,
  setRange,
  fields,
  intervals,
  status,
  chart,
  csv,
  children,
}: {
  id: string;
  range: Range;
  setRange(r: Range): void;
  fields?: ComponentChildren;
  intervals?: Array<[string, string]>;
  status: string;
  chart?: ComponentChildren;
  csv?: { path: string; body: Record<string, unknown>; filename: string };
  children: ComponentChildren;
}) {
  const [note, setNote] = useState('');
  return (
    <section class="report" data-report={id} aria-label={`${id} report`}>
      <RangeForm id={`${id}-range`} value={range} onChange={setRange} intervals={intervals}>
        {fields}
      </RangeForm>
      <Status id={`${id}-status`} text={status} />
      {chart}
      {csv && (
        <div class="actions">
          <CsvButton {...csv} onDone={setNote} />
          <Status id={`${id}-csv-status`} text={note} />
        </div>
      )}
      {children}
    </section>
  );
}

interface QueueRow {
  groupId: number;
  start: number;
  end: number;
  offered: number;
  answered: number;
  abandoned: number;
  shortAbandoned: number;
  serviceLevel: Record<string, number | null>;
  abandonRate: number | null;
  asa: number | null;
  aht: number | null;
  maxWait: number | null;
}

function QueueReport() {
  const [range, setRange] = useState(defaultRange('hour'));
  const [group, setGroup] = useState('');
  const groups = useLookup('groups');
  const body = { ...apiRange(range), interval: range.interval, ...(group ? { groupId: Number(group) } : {}) };
  const { rows, status } = useRows<QueueRow>('report/queue', body);
  const chart =
    rows &&
    perStart(rows, [
      ['offered', 'Offered'],
      ['answered', 'Answered'],
      ['abandoned', 'Abandoned'],
    ]);
  const columns: Column<QueueRow>[] = [
    { label: 'Group', cell: (r) => nameOf(groups, r.groupId) },
    { label: 'From', cell: (r) => when(r.start) },
    { label: 'Offered', num: true, cell: (r) => r.offered },
    { label: 'Answered', num: true, cell: (r) => r.answered },
    { label: 'Abandoned', num: true, cell: (r) => r.abandoned },
    { label: 'Service level (20 s)', num: true, cell: (r) => percent(r.serviceLevel['20']) },
    { label: 'Abandon rate', num: true, cell: (r) => percent(r.abandonRate) },
    { label: 'Average answer', num: true, cell: (r) => duration(r.asa) },
    { label: 'Handle time', num: true, cell: (r) => duration(r.aht) },
  ];
  return (
    <Frame
      id="queue"
      range={range}
      setRange={setRange}
      status={status}
      fields={<Picker id="queue-group" label="Group" list={groups} value={group} onChange={setGroup} any="All groups" />}
      chart={chart && <TimeChart title="Calls offered, answered and abandoned" unit="calls" {...chart} />}
      csv={{ path: 'report/queue', body, filename: `queue-report-${range.from}-${range.to}.csv` }}
    >
      <Table
        caption="Intervals with calls"
        columns={columns}
        rows={(rows ?? []).filter((r) => r.offered > 0)}
        rowKey={(r) => `${r.groupId}-${r.start}`}
        empty="No calls in this range."
      />
    </Frame>
  );
}

interface AgentRow {
  agentId: number;
  start: number;
  loginTime: number;
  availableTime: number;
  talkTime: number;
  holdTime: number;
  wrapTime: number;
  breakTime: number;
  offered: number;
  answered: number;
  missed: number;
  aht: number | null;
  occupancy: number | null;
}

function AgentReport() {
  const [range, setRange] = useState(defaultRange('hour'));
  const [group, setGroup] = useState('');
  const groups = useLookup('groups');
  const agents = useLookup('agents');
  const body = { ...apiRange(range), interval: range.interval, ...(group ? { groupId: Number(group) } : {}) };
  const { rows, status } = useRows<AgentRow>('report/agent', body);
  const chart =
    rows &&
    perStart(
      rows,
      [
        ['talkTime', 'Talk'],
        ['wrapTime', 'Wrap-up'],
        ['breakTime', 'Break'],
        ['availableTime', 'Available'],
      ],
      60,
    );
  const columns: Column<AgentRow>[] = [
    { label: 'Agent', cell: (r) => nameOf(agents, r.agentId) },
    { label: 'From', cell: (r) => when(r.start) },
    { label: 'Logged in', num: true, cell: (r) => duration(r.loginTime) },
    { label: 'Talk', num: true, cell: (r) => duration(r.talkTime) },
    { label: 'Break', num: true, cell: (r) => duration(r.breakTime) },
    { label: 'Offered', num: true, cell: (r) => r.offered },
    { label: 'Answered', num: true, cell: (r) => r.answered },
    { label: 'Missed', num: true, cell: (r) => r.missed },
    { label: 'Handle time', num: true, cell: (r) => duration(r.aht) },
    { label: 'Occupancy', num: true, cell: (r) => percent(r.occupancy) },
  ];
  return (
    <Frame
      id="agent"
      range={range}
      setRange={setRange}
      status={status}
      fields={<Picker id="agent-group" label="Group" list={groups} value={group} onChange={setGroup} any="All agents" />}
      chart={chart && <TimeChart title="Agent time by state" unit="min" {...chart} />}
      csv={{ path: 'report/agent', body, filename: `agent-report-${range.from}-${range.to}.csv` }}
    >
      <Table
        caption="Agents and intervals with activity"
        columns={columns}
        rows={(rows ?? []).filter((r) => r.loginTime > 0 || r.offered > 0)}
        rowKey={(r) => `${r.agentId}-${r.start}`}
        empty="No agent activity in this range."
      />
    </Frame>
  );
}

interface AbandonedRow {
  callId: string;
  caller: string;
  groupId: number | null;
  did: string | null;
  queuedAt: number;
  waited: number;
  calledBack: null | { callId: string; at: number; answered: boolean };
}

/** The start of the local hour or day of `t` (Unix seconds): the abandoned calls' chart buckets. */
function bucket(t: number, interval: string): number {
  const d = new Date(t * 1000);
  d.setMinutes(0, 0, 0);
  if (interval === 'day') d.setHours(0);
  return d.getTime() / 1000;
}

function AbandonedReport() {
  const [range, setRange] = useState(defaultRange('hour'));
  const [group, setGroup] = useState('');
  const [open, setOpen] = useState(false);
  const [more, setMore] = useState<AbandonedRow[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const groups = useLookup('groups');
  const body = { ...apiRange(range), ...(group ? { groupId: Number(group) } : {}), limit: 200 };
  const { rows, status } = useRows<AbandonedRow>('report/abandoned', body, (res) => {
    setMore([]);
    setCursor((res.nextCursor as string | null) ?? null);
    return res.data as AbandonedRow[];
  });
  const all = [...(rows ?? []), ...more];
  const loadMore = async () => {
    const res = await api<{ data: AbandonedRow[]; nextCursor: string | null }>('report/abandoned', { ...body, cursor });
    setMore([...more, ...res.data]);
    setCursor(res.nextCursor);
  };
  const buckets = new Map<number, number>();
  for (const r of all) buckets.set(bucket(r.queuedAt, range.interval), (buckets.get(bucket(r.queuedAt, range.interval)) ?? 0) + 1);
  const x = [...buckets.keys()].sort((a, b) => a - b);
  const shown = open ? all.filter((r) => !r.calledBack?.answered) : all;
  const columns: Column<AbandonedRow>[] = [
    { label: 'Caller', cell: (r) => r.caller },
    { label: 'Group', cell: (r) => nameOf(groups, r.groupId) },
    { label: 'Queued', cell: (r) => when(r.queuedAt) },
    { label: 'Waited', num: true, cell: (r) => duration(r.waited) },
    {
      label: 'Called back',
      cell: (r) => (r.calledBack ? `${r.calledBack.answered ? 'Reached' : 'Tried, not reached'} ${when(r.calledBack.at)}` : 'Not yet'),
    },
  ];
  return (
    <Frame
      id="abandoned"
      range={range}
      setRange={setRange}
      intervals={[
        ['hour', 'Hour'],
        ['day', 'Day'],
      ]}
      status={status}
      fields={
        <>
          <Picker id="abandoned-group" label="Group" list={groups} value={group} onChange={setGroup} any="All groups" />
          <div class="field check">
            <input id="abandoned-open" type="checkbox" checked={open} onChange={(e) => setOpen(e.currentTarget.checked)} />
            <label for="abandoned-open">Only callers not reached yet</label>
          </div>
        </>
      }
      chart={
        rows && <TimeChart title="Abandoned calls (not short)" unit="calls" x={x} series={[{ label: 'Abandoned', values: x.map((b) => buckets.get(b)!) }]} />
      }
      csv={{ path: 'report/abandoned', body, filename: `abandoned-${range.from}-${range.to}.csv` }}
    >
      <Table caption="Callback worklist, newest first" columns={columns} rows={shown} rowKey={(r) => r.callId} empty="No abandoned calls in this range." />
      {cursor && (
        <button type="button" class="secondary" onClick={() => void loadMore()}>
          More
        </button>
      )}
    </Frame>
  );
}

interface CampaignRow {
  campaignId: number;
  start: number;
  dialled: number;
  humanAnswered: number;
  connected: number;
  abandoned: number;
  abandonRate: number | null;
  contactRate: number | null;
  aht: number | null;
}

function CampaignReport() {
  const [range, setRange] = useState(defaultRange('day'));
  const [campaign, setCampaign] = useState('');
  const campaigns = useLookup('campaigns');
  const body = { ...apiRange(range), interval: range.interval, ...(campaign ? { campaignId: Number(campaign) } : {}) };
  const { rows, status } = useRows<CampaignRow>('report/campaign', body);
  const chart =
    rows &&
    perStart(rows, [
      ['dialled', 'Dialled'],
      ['humanAnswered', 'Answered by a person'],
      ['connected', 'Connected'],
      ['abandoned', 'Abandoned'],
    ]);
  const columns: Column<CampaignRow>[] = [
    { label: 'Campaign', cell: (r) => nameOf(campaigns, r.campaignId) },
    { label: 'From', cell: (r) => when(r.start) },
    { label: 'Dialled', num: true, cell: (r) => r.dialled },
    { label: 'Answered by a person', num: true, cell: (r) => r.humanAnswered },
    { label: 'Connected', num: true, cell: (r) => r.connected },
    { label: 'Abandoned', num: true, cell: (r) => r.abandoned },
    { label: 'Abandon rate', num: true, cell: (r) => percent(r.abandonRate) },
    { label: 'Contact rate', num: true, cell: (r) => percent(r.contactRate) },
    { label: 'Handle time', num: true, cell: (r) => duration(r.aht) },
  ];
  return (
    <Frame
      id="campaign"
      range={range}
      setRange={setRange}
      status={status}
      fields={<Picker id="campaign-pick" label="Campaign" list={campaigns} value={campaign} onChange={setCampaign} any="All campaigns" />}
      chart={chart && <TimeChart title="Campaign dials and their outcome" unit="calls" {...chart} />}
      csv={{ path: 'report/campaign', body, filename: `campaign-report-${range.from}-${range.to}.csv` }}
    >
      <Table
        caption="Intervals with dials"
        columns={columns}
        rows={(rows ?? []).filter((r) => r.dialled > 0)}
        rowKey={(r) => `${r.campaignId}-${r.start}`}
        empty="No dials in this range."
      />
    </Frame>
  );
}

type Counters = Record<string, number | null>;
interface HitRow {
  key: string;
  bucket: string;
  c: Counters;
}

const HIT_FIELDS: Array<[string, string]> = [
  ['TC', 'Offers'],
  ['AC', 'Offers answered'],
  ['MC', 'Offers missed'],
  ['UC', 'Calls'],
];

/** A bucket label of analysis/hits (YYYY-MM-DD[ HH:00] or YYYY-MM) as local Unix seconds. */
function labelTime(label: string): number {
  const [date = '', time = '00:00'] = label.split(' ');
  const [y, m, d = '1'] = date.split('-');
  return new Date(Number(y), Number(m) - 1, Number(d), Number(time.split(':')[0])).getTime() / 1000;
}

function HitsReport() {
  const [range, setRange] = useState(defaultRange('date'));
  const [breakDown, setBreakDown] = useState('groupId');
  const groups = useLookup('groups');
  const agents = useLookup('agents');
  const campaigns = useLookup('campaigns');
  const { from, to } = apiRange(range);
  const body = {
    filter: [{ key: 'date', condi: 'range', val: `${from},${to}` }],
    breakDown,
    disPlay: range.interval,
    multi: true,
    fields: HIT_FIELDS.map(([f]) => f),
  };
  const { rows, status } = useRows<HitRow>('analysis/hits', body, (res) =>
    Object.entries(res.data as Record<string, Record<string, Counters>>).flatMap(([key, buckets]) =>
      Object.entries(buckets).map(([b, c]) => ({ key, bucket: b, c })),
    ),
  );
  const labels = [...new Set((rows ?? []).map((r) => r.bucket))].sort();
  const x = range.interval === 'total' ? [] : labels.map(labelTime);
  const series = HIT_FIELDS.map(([f, label]) => ({
    label,
    values: labels.map((b) => (rows ?? []).filter((r) => r.bucket === b).reduce((a, r) => a + (r.c[f] ?? 0), 0)),
  }));
  const keyName = (k: string) =>
    breakDown === 'groupId' ? nameOf(groups, k) : breakDown === 'agentId' ? nameOf(agents, k) : breakDown === 'campaignId' ? nameOf(campaigns, k) : k;
  const columns: Column<HitRow>[] = [
    { label: BREAKDOWNS.find(([b]) => b === breakDown)![1], cell: (r) => keyName(r.key) },
    { label: 'When', cell: (r) => r.bucket },
    ...HIT_FIELDS.map(([f, label]) => ({ label, num: true, cell: (r: HitRow) => r.c[f] ?? '—' })),
  ];
  return (
    <Frame
      id="hits"
      range={range}
      setRange={setRange}
      intervals={[
        ['hour', 'Hour'],
        ['date', 'Day'],
        ['month', 'Month'],
        ['total', 'Whole range'],
      ]}
      status={status}
      fields={
        <div class="field">
          <label for="hits-breakdown">By</label>
          <select id="hits-breakdown" value={breakDown} onChange={(e) => setBreakDown(e.currentTarget.value)}>
            {BREAKDOWNS.map(([v, label]) => (
              <option value={v}>{label}</option>
            ))}
          </select>
        </div>
      }
      chart={rows && x.length > 0 && <TimeChart title="Offers (hits) and calls" unit="calls" x={x} series={series} />}
    >
      <Table caption="Counters by key and period" columns={columns} rows={rows ?? []} rowKey={(r) => `${r.key}-${r.bucket}`} empty="No calls in this range." />
    </Frame>
  );
}

const BREAKDOWNS: Array<[string, string]> = [
  ['groupId', 'Group'],
  ['agentId', 'Agent'],
  ['did', 'DID'],
  ['campaignId', 'Campaign'],
];
