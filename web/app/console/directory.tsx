import { useEffect, useState } from 'preact/hooks';
import { explain } from '../lib/errors.js';
import { when } from '../lib/format.js';
import { api, can } from '../lib/session.js';
import { Field, Status, Table, type Column } from '../lib/ui.js';
import { nameOf, Picker, useLookup } from './lookups.js';
import { subHref, useSubPage } from './subpage.js';

/**
 * Directory (docs/console.md): contacts by number prefix (Directory/search), a number's page at
 * `#/directory/<number>` with its contact record (getInfo), DNC status (getDnc / setDnc), per-DID
 * blacklist (Blacklist) and sticky agents (getSticky / setSticky / removeSticky). Each part shows
 * when the role allows it; a role with only dnc.manage still opens a number and sets its DNC.
 */
export default function Directory() {
  const number = useSubPage('directory');
  return number ? <NumberPage number={number} key={number} /> : <Search />;
}

const digits = (v: string) => v.replace(/\D/g, '');

interface Contact {
  contact: string;
  name?: string | null;
  email?: string | null;
  company?: string | null;
}

function Search() {
  const [open, setOpen] = useState('');
  const [prefix, setPrefix] = useState('');
  const [rows, setRows] = useState<Contact[] | null>(null);
  const [status, setStatus] = useState('');
  const [openError, setOpenError] = useState('');
  const search = async (ev: Event) => {
    ev.preventDefault();
    setStatus('Searching…');
    try {
      const res = await api<{ data: Contact[] }>('Directory/search', { contact: prefix, project: 'name,email,company', limit: 100 });
      setRows(res.data);
      setStatus(`${res.data.length} contacts`);
    } catch (err) {
      setRows([]);
      setStatus((err as { code?: number }).code === 1012 ? 'No contact starts with these digits.' : explain(err, 'directory').text);
    }
  };
  const columns: Column<Contact>[] = [
    {
      label: 'Number',
      cell: (c) => <a href={subHref('directory', c.contact)}>{c.contact}</a>,
    },
    { label: 'Name', cell: (c) => c.name ?? '—' },
    { label: 'E-mail', cell: (c) => c.email ?? '—' },
    { label: 'Company', cell: (c) => c.company ?? '—' },
  ];
  return (
    <section class="page-section">
      <form
        class="card row-form"
        aria-label="Open a number"
        onSubmit={(ev) => {
          ev.preventDefault();
          const d = digits(open);
          if (d.length < 6 || d.length > 15) return setOpenError('This is not a phone number: it needs 6 to 15 digits.');
          setOpenError('');
          location.hash = subHref('directory', d);
        }}
      >
        <Field
          name="open-number"
          label="Number"
          error={openError}
          inputProps={{ inputMode: 'tel', value: open, onInput: (e) => setOpen(e.currentTarget.value) }}
        />
        <button type="submit" id="open-number-submit">
          Open
        </button>
      </form>
      {can('directory.view') && (
        <>
          <form class="card row-form" aria-label="Search contacts" onSubmit={search}>
            <Field
              name="search-prefix"
              label="Numbers starting with"
              hint="Digits only: the start of the numbers to list."
              inputProps={{ inputMode: 'tel', value: prefix, required: true, onInput: (e) => setPrefix(e.currentTarget.value) }}
            />
            <button type="submit">Search</button>
          </form>
          <Status id="search-status" text={status} />
          {rows && <Table caption="Contacts" columns={columns} rows={rows} rowKey={(c) => c.contact} empty="No contact found." />}
        </>
      )}
    </section>
  );
}

function NumberPage({ number }: { number: string }) {
  return (
    <section class="page-section" aria-labelledby="number-title">
      <p>
        <a href="#/directory">← Directory</a>
      </p>
      <h2 id="number-title">{number}</h2>
      <div class="tiles wide">
        {can('directory.view') && <ContactCard number={number} />}
        {(can('directory.view') || can('dnc.manage')) && <DncCard number={number} />}
        {can('blacklist.manage') && <BlacklistCard number={number} />}
        {(can('directory.view') || can('sticky.manage')) && <StickyCard number={number} />}
      </div>
    </section>
  );
}

const CONTACT_FIELDS: Array<[string, string]> = [
  ['Name', 'Name'],
  ['Email', 'E-mail'],
  ['Company', 'Company'],
  ['Designation', 'Designation'],
  ['Address', 'Address'],
  ['DOB', 'Date of birth'],
];

function ContactCard({ number }: { number: string }) {
  const [info, setInfo] = useState<{ Cu: Record<string, unknown>; Ot?: Record<string, unknown> } | null>(null);
  const [status, setStatus] = useState('Loading…');
  useEffect(() => {
    api<{ Cu: Record<string, unknown>; Ot?: Record<string, unknown> }>('Directory/getInfo', { cn: number, field: 'all' })
      .then((res) => {
        setInfo(res);
        setStatus('');
      })
      .catch((err) => setStatus((err as { code?: number }).code === 1012 ? 'This number is not in the directory.' : explain(err, 'directory').text));
  }, [number]);
  const custom = info ? Object.entries(info.Cu).filter(([k]) => k.startsWith('custom_')) : [];
  return (
    <section class="card" aria-labelledby="contact-title" data-card="contact">
      <h3 id="contact-title">Contact</h3>
      <Status id="contact-status" text={status} />
      {info && (
        <dl class="facts" id="contact-facts">
          {CONTACT_FIELDS.filter(([k]) => info.Cu[k] !== undefined).map(([k, label]) => (
            <>
              <dt>{label}</dt>
              <dd>{String(info.Cu[k])}</dd>
            </>
          ))}
          {custom.map(([k, v]) => (
            <>
              <dt>{k.slice('custom_'.length)}</dt>
              <dd>{String(v)}</dd>
            </>
          ))}
          {info.Ot?.tC !== undefined && (
            <>
              <dt>Calls</dt>
              <dd>{String(info.Ot.tC)}</dd>
            </>
          )}
          {info.Ot?.vip === true && (
            <>
              <dt>VIP</dt>
              <dd>Yes</dd>
            </>
          )}
          {info.Ot?.blacklist === true && (
            <>
              <dt>Blocked</dt>
              <dd>On every DID (the contact record)</dd>
            </>
          )}
        </dl>
      )}
    </section>
  );
}

function dncText(dnc: number): string {
  if (dnc === 0) return 'Not on the DNC list';
  if (dnc === -1) return 'On the DNC list, permanently';
  return `On the DNC list until ${when(dnc)}`;
}

function DncCard({ number }: { number: string }) {
  const [dnc, setDnc] = useState<number | null>(null);
  const [until, setUntil] = useState('');
  const [status, setStatus] = useState('');
  const read = async () => {
    if (!can('directory.view')) return;
    try {
      setDnc((await api<{ data: { dnc: number } }>('Directory/getDnc', { contact: number })).data.dnc);
    } catch (err) {
      setStatus(explain(err, 'directory').text);
    }
  };
  useEffect(() => void read(), [number]);
  const set = async (value: number, done: string) => {
    try {
      await api('Directory/setDnc', { contact: number, dnc: value });
      setStatus(done);
      if (can('directory.view')) await read();
      else setDnc(value);
    } catch (err) {
      setStatus(explain(err, 'directory').text);
    }
  };
  return (
    <section class="card" aria-labelledby="dnc-title" data-card="dnc">
      <h3 id="dnc-title">Do not call</h3>
      <p id="dnc-state" data-dnc={dnc ?? ''}>
        {dnc === null ? (can('directory.view') ? 'Loading…' : 'Your role may set the DNC status but not read it.') : dncText(dnc)}
      </p>
      {can('dnc.manage') && (
        <>
          <div class="actions">
            <button type="button" id="dnc-add" onClick={() => void set(-1, 'Added to the DNC list.')}>
              Add to the DNC list
            </button>
            <button type="button" class="danger" id="dnc-remove" onClick={() => void set(0, 'Removed from the DNC list.')}>
              Remove from the DNC list
            </button>
          </div>
          <form
            class="row-form"
            aria-label="DNC until a date"
            onSubmit={(ev) => {
              ev.preventDefault();
              const [y, m, d] = until.split('-').map(Number);
              const t = new Date(y!, m! - 1, d!, 23, 59, 59).getTime() / 1000;
              void set(Math.floor(t), `On the DNC list until ${until}.`);
            }}
          >
            <div class="field">
              <label for="dnc-until">Until</label>
              <input id="dnc-until" type="date" required value={until} onInput={(e) => setUntil(e.currentTarget.value)} />
            </div>
            <button type="submit" class="secondary">
              Set until
            </button>
          </form>
        </>
      )}
      <Status id="dnc-status" text={status} />
    </section>
  );
}

function BlacklistCard({ number }: { number: string }) {
  const dids = useLookup('dids');
  const [chosen, setChosen] = useState<string[]>([]);
  const [typed, setTyped] = useState('');
  const [status, setStatus] = useState('');
  const send = async (list: string[]) => {
    try {
      const res = await api<{ data: { DID: string[] } }>('Directory/Blacklist', { contact: number, DID: list });
      setStatus(res.data.DID.length ? `Blocked on ${res.data.DID.join(', ')}.` : 'Not blocked on any DID.');
    } catch (err) {
      setStatus(explain(err, 'directory').text);
    }
  };
  const list = dids ? chosen : typed.split(/[\s,]+/).filter(Boolean);
  return (
    <section class="card" aria-labelledby="bl-title" data-card="blacklist">
      <h3 id="bl-title">Blacklist</h3>
      <p class="note">Calls from this number to the chosen DIDs are refused. Sending a set replaces the one before.</p>
      <form
        onSubmit={(ev) => {
          ev.preventDefault();
          void send(list);
        }}
      >
        {dids ? (
          <fieldset>
            <legend>DIDs</legend>
            {dids.length === 0 && <p class="note">The account has no DID.</p>}
            {dids.map((d) => (
              <div class="field check">
                <input
                  type="checkbox"
                  id={`bl-${d.id}`}
                  checked={chosen.includes(d.id)}
                  onChange={(e) => setChosen(e.currentTarget.checked ? [...chosen, d.id] : chosen.filter((x) => x !== d.id))}
                />
                <label for={`bl-${d.id}`}>{d.name === d.id ? d.id : `${d.name} (${d.id})`}</label>
              </div>
            ))}
          </fieldset>
        ) : (
          <Field
            name="bl-dids"
            label="DIDs"
            hint="Numbers of the account, separated by commas."
            inputProps={{ value: typed, onInput: (e) => setTyped(e.currentTarget.value) }}
          />
        )}
        <div class="actions">
          <button type="submit" disabled={list.length === 0}>
            Block on these DIDs
          </button>
          <button type="button" class="danger" onClick={() => void send([])}>
            Remove from the blacklist
          </button>
        </div>
      </form>
      <Status id="bl-status" text={status} />
    </section>
  );
}

interface Sticky {
  agent: number;
  expiry: number;
  type: string;
  cli?: string;
  groupid?: number;
}

function StickyCard({ number }: { number: string }) {
  const agents = useLookup('agents');
  const groups = useLookup('groups');
  const [rows, setRows] = useState<Sticky[] | null>(null);
  const [form, setForm] = useState({ agentId: '', type: 'all', cli: '', groupid: '', until: '' });
  const [status, setStatus] = useState('');
  const [error, setError] = useState<{ field?: string; text: string } | null>(null);
  const read = async () => {
    if (!can('directory.view')) return;
    try {
      setRows((await api<{ data: Sticky[] }>('Directory/getSticky', { contact: number })).data);
    } catch (err) {
      setStatus(explain(err, 'directory').text);
    }
  };
  useEffect(() => void read(), [number]);
  const add = async (ev: Event) => {
    ev.preventDefault();
    setError(null);
    const expiry = form.until ? Math.floor(new Date(`${form.until}T23:59:59`).getTime() / 1000) : -1;
    try {
      await api('Directory/setSticky', {
        contact: number,
        agentId: form.agentId,
        type: form.type,
        expiry,
        ...(form.type !== 'all' ? { cli: form.cli } : {}),
        ...(form.type === 'cli_group' ? { groupid: form.groupid } : {}),
      });
      setStatus(`${nameOf(agents, form.agentId)} is now this number's agent.`);
      await read();
    } catch (err) {
      setError(explain(err, 'directory', ['agentId', 'cli', 'groupid', 'expiry']));
    }
  };
  const remove = async (s: Sticky) => {
    try {
      await api('Directory/removeSticky', {
        contact: number,
        type: s.type === '*' ? 'all' : s.type,
        agentId: s.agent,
        ...(s.cli ? { cli: s.cli } : {}),
        ...(s.groupid ? { groupid: s.groupid } : {}),
      });
      setStatus('Removed.');
      await read();
    } catch (err) {
      setStatus(explain(err, 'directory').text);
    }
  };
  const columns: Column<Sticky>[] = [
    { label: 'Agent', cell: (s) => nameOf(agents, s.agent) },
    { label: 'For calls to', cell: (s) => (s.type === '*' ? 'Any DID' : s.type === 'cli' ? s.cli : `${s.cli}, group ${nameOf(groups, s.groupid)}`) },
    { label: 'Until', cell: (s) => (s.expiry === -1 ? 'No end' : when(s.expiry)) },
  ];
  if (can('sticky.manage'))
    columns.push({
      label: 'Remove',
      cell: (s) => (
        <button type="button" class="danger" onClick={() => void remove(s)} aria-label={`Remove ${nameOf(agents, s.agent)} as sticky agent`}>
          Remove
        </button>
      ),
    });
  const fieldError = (f: string) => (error?.field === f ? error.text : undefined);
  return (
    <section class="card" aria-labelledby="sticky-title" data-card="sticky">
      <h3 id="sticky-title">Sticky agents</h3>
      {rows && (
        <Table
          caption="Agents this number's calls go to first"
          columns={columns}
          rows={rows}
          rowKey={(s) => `${s.type}-${s.cli ?? ''}-${s.groupid ?? ''}-${s.agent}`}
          empty="None."
        />
      )}
      {can('sticky.manage') && (
        <form onSubmit={add} aria-label="Add a sticky agent">
          <Picker
            id="sticky-agent"
            label="Agent"
            list={agents}
            value={form.agentId}
            onChange={(v) => setForm({ ...form, agentId: v })}
            any={agents ? 'Choose an agent' : 'Agent id'}
          />
          {fieldError('agentId') && (
            <p class="field-error" role="alert">
              {fieldError('agentId')}
            </p>
          )}
          <div class="field">
            <label for="sticky-type">For calls to</label>
            <select id="sticky-type" value={form.type} onChange={(e) => setForm({ ...form, type: e.currentTarget.value })}>
              <option value="all">Any DID</option>
              <option value="cli">One DID</option>
              <option value="cli_group">One DID and group</option>
            </select>
          </div>
          {form.type !== 'all' && (
            <Field
              name="cli"
              label="DID"
              error={fieldError('cli')}
              inputProps={{ value: form.cli, onInput: (e) => setForm({ ...form, cli: e.currentTarget.value }) }}
            />
          )}
          {form.type === 'cli_group' && (
            <Picker
              id="sticky-group"
              label="Group"
              list={groups}
              value={form.groupid}
              onChange={(v) => setForm({ ...form, groupid: v })}
              any="Choose a group"
            />
          )}
          <Field
            name="sticky-until"
            label="Until (empty: no end)"
            type="date"
            error={fieldError('expiry')}
            inputProps={{ value: form.until, onInput: (e) => setForm({ ...form, until: e.currentTarget.value }) }}
          />
          {error && !['agentId', 'cli', 'expiry'].includes(error.field ?? '') && (
            <p class="error" role="alert">
              {error.text}
            </p>
          )}
          <button type="submit">Add sticky agent</button>
        </form>
      )}
      <Status id="sticky-status" text={status} />
    </section>
  );
}
