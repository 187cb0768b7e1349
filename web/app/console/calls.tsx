import { useEffect, useRef, useState } from 'preact/hooks';
import { explain } from '../lib/errors.js';
import { daysAgo, duration, fromInputDate, inputDate } from '../lib/format.js';
import { api } from '../lib/session.js';
import { Status, Table, type Column } from '../lib/ui.js';
import { downloadGetCsv } from './download.js';
import { nameOf, Picker, useLookup, type Named } from './lookups.js';
import { subHref, useSubPage } from './subpage.js';

/**
 * Calls (docs/console.md): the call reports (CallReport/list) with search and filters, newest
 * first, paged; a call's detail with its legs (CallReport/detail) at `#/calls/<callId>`, its
 * recordings played in the page through directstream (the link is its own signed credential, so
 * an <audio> element plays it with no header); the filtered list as CSV (CallReport/export).
 */
interface Leg {
  nodeId: string;
  agentId: number;
  groupId: number | null;
  status: 'answered' | 'missed';
  totalRingDuration: number;
  talkDuration: number;
  totalHoldDuration: number;
  answerSTime: string | null;
}

interface CallReport {
  callId: string;
  callStatus: 0 | 1 | 2 | 3;
  cType: 'IBD' | 'OBD' | 'CTC';
  DID: string | null;
  campId: number | string;
  cNumber: string;
  ivrSTime: string;
  ivrETime: string;
  ivrDuration: number;
  talkDuration: number;
  totalHoldDuration: number;
  masterAgent: number | null;
  masterGroupId: number | null;
  recordings: Array<{ file: string }>;
  nHDetail: Leg[];
  callDisposition: string;
  retryOf: string | null;
  rcrdAr?: Array<{ ndId: string | null; rcrd: string }>;
}

const STATUS: Record<number, string> = { 3: 'Answered', 2: 'Missed', 1: 'Ended before an offer', 0: 'Failed' };
const TYPES: Record<string, string> = { IBD: 'Inbound', OBD: 'Outbound', CTC: 'Click to call' };

interface Filters {
  caller: string;
  agentId: string;
  groupId: string;
  callStatus: string;
  cType: string;
  from: string;
  to: string;
}

function query(f: Filters): Record<string, string> {
  const q: Record<string, string> = {};
  if (f.caller.trim()) q.caller = f.caller.trim();
  if (f.agentId) q.agentId = f.agentId;
  if (f.groupId) q.groupId = f.groupId;
  if (f.callStatus) q.callStatus = f.callStatus;
  if (f.cType) q.cType = f.cType;
  if (f.from) q.from = `${fromInputDate(f.from)} 00:00:00`;
  if (f.to) q.to = `${fromInputDate(f.to)} 23:59:59`;
  return q;
}

export default function Calls() {
  const callId = useSubPage('calls');
  const agents = useLookup('agents');
  const groups = useLookup('groups');
  return callId ? <CallDetail callId={callId} agents={agents} groups={groups} /> : <CallList agents={agents} groups={groups} />;
}

function CallList({ agents, groups }: { agents: Named[] | null; groups: Named[] | null }) {
  const [draft, setDraft] = useState<Filters>({
    caller: '',
    agentId: '',
    groupId: '',
    callStatus: '',
    cType: '',
    from: inputDate(daysAgo(6)),
    to: inputDate(new Date()),
  });
  const [filters, setFilters] = useState(draft);
  const [rows, setRows] = useState<CallReport[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [note, setNote] = useState('');
  const set = (k: keyof Filters) => (v: string) => setDraft({ ...draft, [k]: v });
  const load = async (f: Filters, after: string | null) => {
    setStatus('Loading…');
    try {
      const res = await api<{ data: CallReport[]; nextCursor: string | null }>('CallReport/list', {
        ...query(f),
        limit: 50,
        ...(after ? { cursor: after } : {}),
      });
      const all = after ? [...(rows ?? []), ...res.data] : res.data;
      setRows(all);
      setCursor(res.nextCursor);
      setStatus(`${all.length} calls${res.nextCursor ? ' (more below)' : ''}`);
    } catch (err) {
      setRows([]);
      setStatus(explain(err, 'general', ['caller', 'agentId', 'groupId', 'from', 'to']).text);
    }
  };
  useEffect(() => void load(filters, null), [JSON.stringify(filters)]);
  const columns: Column<CallReport>[] = [
    { label: 'Queued', cell: (r) => r.ivrSTime },
    { label: 'Number', cell: (r) => r.cNumber },
    { label: 'Type', cell: (r) => TYPES[r.cType] ?? r.cType },
    { label: 'Status', cell: (r) => STATUS[r.callStatus] ?? r.callStatus },
    { label: 'Agent', cell: (r) => nameOf(agents, r.masterAgent) },
    { label: 'Talk', num: true, cell: (r) => duration(r.talkDuration) },
    { label: 'Recording', cell: (r) => (r.recordings.length > 0 ? 'Yes' : '—') },
    {
      label: 'Call',
      cell: (r) => (
        <a href={subHref('calls', r.callId)} aria-label={`Details of call ${r.callId}`}>
          {r.callId}
        </a>
      ),
    },
  ];
  return (
    <section class="page-section">
      <form
        class="card"
        aria-label="Search calls"
        id="calls-search"
        onSubmit={(ev) => {
          ev.preventDefault();
          setFilters({ ...draft });
        }}
      >
        <div class="form-grid">
          <div class="field">
            <label for="calls-caller">Number</label>
            <input id="calls-caller" inputMode="tel" value={draft.caller} onInput={(e) => set('caller')(e.currentTarget.value)} />
          </div>
          <Picker id="calls-agent" label="Agent" list={agents} value={draft.agentId} onChange={set('agentId')} any="Any agent" />
          <Picker id="calls-group" label="Group" list={groups} value={draft.groupId} onChange={set('groupId')} any="Any group" />
          <div class="field">
            <label for="calls-status-filter">Status</label>
            <select id="calls-status-filter" value={draft.callStatus} onChange={(e) => set('callStatus')(e.currentTarget.value)}>
              <option value="">Any status</option>
              {[3, 2, 1, 0].map((s) => (
                <option value={String(s)}>{STATUS[s]}</option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="calls-type">Type</label>
            <select id="calls-type" value={draft.cType} onChange={(e) => set('cType')(e.currentTarget.value)}>
              <option value="">Any type</option>
              {Object.entries(TYPES).map(([v, label]) => (
                <option value={v}>{label}</option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="calls-from">From</label>
            <input id="calls-from" type="date" value={draft.from} onInput={(e) => set('from')(e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="calls-to">To</label>
            <input id="calls-to" type="date" value={draft.to} onInput={(e) => set('to')(e.currentTarget.value)} />
          </div>
        </div>
        <div class="actions">
          <button type="submit" id="calls-search-submit">
            Search
          </button>
          <button
            type="button"
            class="secondary"
            id="calls-csv"
            onClick={async () => {
              try {
                const text = await downloadGetCsv('CallReport/export', query(filters), 'call-reports.csv');
                setNote(`Downloaded call-reports.csv: ${Math.max(0, text.trim().split(/\r?\n/).length - 1)} calls.`);
              } catch (err) {
                setNote(explain(err).text);
              }
            }}
          >
            Download CSV
          </button>
          <Status id="calls-csv-status" text={note} />
        </div>
      </form>
      <Status id="calls-status" text={status} />
      <Table caption="Calls, newest first" columns={columns} rows={rows ?? []} rowKey={(r) => r.callId} empty="No call matches." />
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(filters, cursor)}>
          More calls
        </button>
      )}
    </section>
  );
}

function CallDetail({ callId, agents, groups }: { callId: string; agents: Named[] | null; groups: Named[] | null }) {
  const [call, setCall] = useState<CallReport | null>(null);
  const [status, setStatus] = useState('Loading…');
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    api<{ data: CallReport }>('CallReport/detail', { clId: callId, rType: ['rcrd'] })
      .then((res) => {
        setCall(res.data);
        setStatus('');
        heading.current?.focus();
      })
      .catch((err) => setStatus(explain(err).text));
  }, [callId]);
  const legs: Column<Leg>[] = [
    { label: 'Leg', cell: (l) => l.nodeId },
    { label: 'Agent', cell: (l) => nameOf(agents, l.agentId) },
    { label: 'Group', cell: (l) => nameOf(groups, l.groupId) },
    { label: 'Outcome', cell: (l) => (l.status === 'answered' ? 'Answered' : 'Missed') },
    { label: 'Rang', num: true, cell: (l) => duration(l.totalRingDuration) },
    { label: 'Talk', num: true, cell: (l) => duration(l.talkDuration) },
    { label: 'Hold', num: true, cell: (l) => duration(l.totalHoldDuration) },
    { label: 'Answered at', cell: (l) => l.answerSTime ?? '—' },
  ];
  return (
    <section class="page-section" aria-labelledby="call-title">
      <p>
        <a href="#/calls">← All calls</a>
      </p>
      <h2 id="call-title" tabIndex={-1} ref={heading}>
        Call {callId}
      </h2>
      <Status id="call-status" text={status} />
      {call && (
        <>
          <div class="card">
            <dl class="facts" id="call-facts">
              <dt>Number</dt>
              <dd>{call.cNumber}</dd>
              <dt>Type</dt>
              <dd>{TYPES[call.cType] ?? call.cType}</dd>
              <dt>Status</dt>
              <dd>{STATUS[call.callStatus]}</dd>
              <dt>DID</dt>
              <dd>{call.DID ?? '—'}</dd>
              <dt>Group</dt>
              <dd>{nameOf(groups, call.masterGroupId)}</dd>
              <dt>Agent</dt>
              <dd>{nameOf(agents, call.masterAgent)}</dd>
              <dt>Queued</dt>
              <dd>{call.ivrSTime}</dd>
              <dt>Ended</dt>
              <dd>{call.ivrETime}</dd>
              <dt>Talk</dt>
              <dd>{duration(call.talkDuration)}</dd>
              <dt>Hold</dt>
              <dd>{duration(call.totalHoldDuration)}</dd>
              {call.callDisposition && (
                <>
                  <dt>Disposition</dt>
                  <dd>{call.callDisposition}</dd>
                </>
              )}
              {call.retryOf && (
                <>
                  <dt>Retry of</dt>
                  <dd>
                    <a href={subHref('calls', call.retryOf)}>{call.retryOf}</a>
                  </dd>
                </>
              )}
            </dl>
          </div>
          <Table
            caption="Legs: the agents the call was offered to"
            columns={legs}
            rows={call.nHDetail}
            rowKey={(l) => l.nodeId}
            empty="The call was never offered to an agent."
          />
          <section class="card" aria-labelledby="rec-title">
            <h3 id="rec-title">Recordings</h3>
            {(call.rcrdAr ?? []).length === 0 ? (
              <p class="note">This call has no recording.</p>
            ) : (
              <ul class="plain">
                {call.rcrdAr!.map((r, i) => (
                  <li>
                    <p id={`rec-label-${i}`}>
                      Recording {i + 1}
                      {r.ndId ? ` (leg ${r.ndId})` : ''}
                    </p>
                    <audio
                      controls
                      preload="metadata"
                      class="recording"
                      aria-labelledby={`rec-label-${i}`}
                      src={`/api/v2/recording/directstream/${r.rcrd.split('*').join('/')}`}
                    />
                  </li>
                ))}
              </ul>
            )}
          </section>
        </>
      )}
    </section>
  );
}
