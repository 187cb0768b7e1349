import { useEffect, useState } from 'preact/hooks';
import { explain } from '../lib/errors.js';
import { when } from '../lib/format.js';
import { api } from '../lib/session.js';
import { Field, Status, Table } from '../lib/ui.js';
import { SelectField } from './form.js';

/**
 * Audit: audit/list (audit.view, docs/audit.md) with its filters — who, operation, target, a range —
 * newest first, a page of PAGE records at a time (nextCursor; the cursors of the pages before are
 * kept, so Previous goes back without asking again for the start).
 */
const PAGE = 25;

/** The target types audit/list accepts (src/http/operation.ts AUDIT_TARGET_TYPES). */
const TARGET_TYPES = [
  'agent',
  'group',
  'role',
  'did',
  'contact',
  'account',
  'token',
  'webhook',
  'sticky',
  'dnc',
  'blacklist',
  'contactList',
  'listContact',
  'campaign',
];

interface AuditRecord {
  id: number;
  at: number;
  principal: { kind: string; id: string; name: string };
  credential: string;
  ip: string;
  operation: string;
  target: { type: string; id: string | null };
  changes: Record<string, [unknown, unknown]>;
}

type Filters = Record<string, string | number>;

const show = (v: unknown) => (v === null || v === undefined ? '∅' : typeof v === 'string' ? v : JSON.stringify(v));

function Changes({ changes }: { changes: AuditRecord['changes'] }) {
  const keys = Object.keys(changes);
  if (keys.length === 0) return <>—</>;
  return (
    <ul class="changes">
      {keys.map((k) => (
        <li>
          <strong>{k}</strong>: {show(changes[k]![0])} → {show(changes[k]![1])}
        </li>
      ))}
    </ul>
  );
}

/** A datetime-local value (the browser's local time) → Unix seconds, or undefined when empty. */
function unix(v: FormDataEntryValue | null): number | undefined {
  const s = String(v ?? '');
  if (!s) return undefined;
  const t = new Date(s).getTime();
  return Number.isFinite(t) ? Math.floor(t / 1000) : undefined;
}

export function AuditPage() {
  const [filters, setFilters] = useState<Filters>({});
  /** cursors[i]: the cursor of page i (undefined for the first). */
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [rows, setRows] = useState<AuditRecord[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const pageNo = cursors.length;
  useEffect(() => {
    const c = new AbortController();
    const cursor = cursors[cursors.length - 1];
    api<{ data: AuditRecord[]; nextCursor: string | null }>('audit/list', { ...filters, limit: PAGE, ...(cursor ? { cursor } : {}) }, c.signal)
      .then((res) => {
        setRows(res.data);
        setNext(res.nextCursor);
        setStatus(
          `Page ${cursors.length}: ${res.data.length} record${res.data.length === 1 ? '' : 's'}${Object.keys(filters).length ? ' matching the filters' : ''}.`,
        );
        setErrors({});
      })
      .catch((err: Error) => {
        if (err.name === 'AbortError') return;
        const e = explain(err, 'general', ['from', 'to', 'operation', 'targetType', 'targetId', 'principalId']);
        if (e.field) setErrors({ [e.field]: e.text });
        setStatus(e.text);
      });
    return () => c.abort();
  }, [filters, cursors]);
  const apply = (ev: Event) => {
    ev.preventDefault();
    const data = new FormData(ev.currentTarget as HTMLFormElement);
    const f: Filters = {};
    for (const k of ['principalId', 'operation', 'targetType', 'targetId']) {
      const v = String(data.get(k) ?? '').trim();
      if (v) f[k] = v;
    }
    const from = unix(data.get('from'));
    const to = unix(data.get('to'));
    if (from !== undefined) f.from = from;
    if (to !== undefined) f.to = to;
    setFilters(f);
    setCursors([undefined]);
  };
  const clear = (ev: Event) => {
    (ev.currentTarget as HTMLButtonElement).form?.reset();
    setFilters({});
    setCursors([undefined]);
  };
  return (
    <>
      <p class="note">
        Every successful change, newest first: who made it, with which credential, from where, and the fields it changed. Secrets show as [redacted].
      </p>
      <form class="card" onSubmit={apply} aria-label="Filters" id="audit-filters">
        <div class="form-grid">
          <Field name="principalId" label="Who (userId)" error={errors.principalId} hint="the account’s id, or agent-17 for an agent" />
          <Field name="operation" label="Operation" error={errors.operation} hint="e.g. Agent/create" />
          <SelectField
            name="targetType"
            label="Target type"
            error={errors.targetType}
            options={[['', 'Any'], ...TARGET_TYPES.map((t): [string, string] => [t, t])]}
          />
          <Field name="targetId" label="Target id" error={errors.targetId} />
          <Field name="from" label="From" type="datetime-local" error={errors.from} />
          <Field name="to" label="To" type="datetime-local" error={errors.to} />
        </div>
        <div class="actions">
          <button type="submit">Apply filters</button>
          <button type="button" class="ghost" onClick={clear}>
            Clear
          </button>
        </div>
      </form>
      <Status text={status} id="audit-status" />
      {rows && (
        <Table
          caption={`Audit trail, page ${pageNo}`}
          rows={rows}
          rowKey={(r) => String(r.id)}
          empty="No record matches."
          columns={[
            { label: 'When', cell: (r) => when(r.at) },
            {
              label: 'Who',
              cell: (r) => (
                <>
                  {r.principal.name} <span class="note">({r.principal.id})</span>
                </>
              ),
            },
            { label: 'Operation', cell: (r) => <span data-operation>{r.operation}</span> },
            { label: 'Target', cell: (r) => `${r.target.type}${r.target.id === null ? '' : ` ${r.target.id}`}` },
            { label: 'Changes', cell: (r) => <Changes changes={r.changes} /> },
            { label: 'Credential', cell: (r) => r.credential },
            { label: 'From', cell: (r) => r.ip },
          ]}
        />
      )}
      <nav class="actions" aria-label="Pages of the audit trail">
        <button type="button" class="secondary" disabled={pageNo === 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Newer
        </button>
        <button type="button" class="secondary" disabled={!next} onClick={() => next && setCursors((c) => [...c, next])}>
          Older
        </button>
      </nav>
    </>
  );
}
