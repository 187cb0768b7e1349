import { useEffect, useState } from 'preact/hooks';
import { explain } from '../lib/errors.js';
import { when } from '../lib/format.js';
import { api, can, session } from '../lib/session.js';
import { Field, Status, Table, type Column } from '../lib/ui.js';
import { ConfirmDelete } from './form.js';
import { nameOf, Picker, useLookup } from './lookups.js';

/**
 * Campaigns (docs/console.md, docs/campaigns.md): contact lists (contactList/create, list, delete)
 * and their CSV import (contactList/importCsv: the file is the request body, streamed; progress is
 * the upload's, then the answer's counts), campaigns (campaign/create, list, start, pause, stop,
 * delete) and the live status of one (campaign/status, polled every 3 s while shown).
 */
interface ContactList {
  clId: number;
  name: string;
  contacts: number;
  createdAt: number;
}

interface Campaign {
  campaignId: number;
  name: string;
  state: 'draft' | 'running' | 'paused' | 'stopped' | 'completed';
  mode: string;
  clIds: number[];
  groupId: number;
  did: string;
}

interface CampaignStatus {
  state: string;
  mode: string;
  dialLevel: number | null;
  lines: number;
  agents: { available: number; onCall: number; wrapUp: number };
  contacts: { total: number; dialable: number; scheduled: number; done: number; excluded: number };
  window: { humanAnswered: number; abandoned: number; abandonRate: number | null };
}

const POLL_MS = 3000;

export default function Campaigns() {
  const [lists, setLists] = useState<ContactList[] | null>(null);
  const [campaigns, setCampaigns] = useState<Campaign[] | null>(null);
  const [status, setStatus] = useState('');
  const loadLists = async () => {
    try {
      setLists((await api<{ data: ContactList[] }>('contactList/list')).data);
    } catch (err) {
      setStatus(explain(err).text);
    }
  };
  const loadCampaigns = async () => {
    try {
      setCampaigns((await api<{ data: Campaign[] }>('campaign/list')).data);
    } catch (err) {
      setStatus(explain(err).text);
    }
  };
  useEffect(() => {
    if (!can('campaign.view')) return;
    void loadLists();
    void loadCampaigns();
  }, []);
  return (
    <>
      <Status id="campaigns-status" text={status} />
      <ContactLists lists={lists} reload={loadLists} />
      <CampaignList campaigns={campaigns} lists={lists} reload={loadCampaigns} />
    </>
  );
}

function ContactLists({ lists, reload }: { lists: ContactList[] | null; reload(): Promise<void> }) {
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState('');
  const [status, setStatus] = useState('');
  const create = async (ev: Event) => {
    ev.preventDefault();
    setNameError('');
    try {
      const res = await api<{ data: { clId: number } }>('contactList/create', { name: name.trim() });
      setStatus(`List “${name.trim()}” created (${res.data.clId}).`);
      setName('');
      await reload();
    } catch (err) {
      setNameError(explain(err, 'general', ['name']).text);
    }
  };
  const remove = async (l: ContactList) => {
    try {
      await api('contactList/delete', { clId: l.clId });
      setStatus(`List “${l.name}” deleted.`);
      await reload();
    } catch (err) {
      setStatus(explain(err).text);
    }
  };
  const columns: Column<ContactList>[] = [
    { label: 'List', cell: (l) => l.name },
    { label: 'Contacts', num: true, cell: (l) => <span data-contacts={l.contacts}>{l.contacts}</span> },
    { label: 'Created', cell: (l) => when(l.createdAt) },
  ];
  if (can('campaign.manage'))
    columns.push({
      label: 'Delete',
      cell: (l) => <ConfirmDelete what={`the list ${l.name} and its ${l.contacts} contacts`} onConfirm={() => remove(l)} />,
    });
  return (
    <section class="page-section" aria-labelledby="lists-title">
      <h2 id="lists-title">Contact lists</h2>
      {lists && <Table caption="Contact lists" columns={columns} rows={lists} rowKey={(l) => String(l.clId)} empty="No contact list yet." />}
      {can('campaign.manage') && (
        <div class="tiles">
          <form class="card" onSubmit={create} aria-label="New contact list">
            <h3>New list</h3>
            <Field name="list-name" label="Name" required error={nameError} inputProps={{ value: name, onInput: (e) => setName(e.currentTarget.value) }} />
            <button type="submit">Create list</button>
          </form>
          <CsvImport lists={lists ?? []} reload={reload} />
        </div>
      )}
      <Status id="lists-status" text={status} />
    </section>
  );
}

interface ImportResult {
  rows: number;
  added: number;
  updated: number;
  rejectedCount: number;
  rejected: Array<{ line: number; code: number; message: string }>;
}

/** Sends the file as the body of contactList/importCsv with the session as a bearer token; upload progress, then the counts. */
function CsvImport({ lists, reload }: { lists: ContactList[]; reload(): Promise<void> }) {
  const [clId, setClId] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [phase, setPhase] = useState('');
  const [result, setResult] = useState<ImportResult | null>(null);
  const send = (ev: Event) => {
    ev.preventDefault();
    // The select shows the first list until another is chosen.
    const list = clId || String(lists[0]?.clId ?? '');
    if (!file || !list) return setPhase('Choose a list and a CSV file.');
    setResult(null);
    setProgress(0);
    setPhase('Sending the file…');
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/v2/contactList/importCsv?clId=${encodeURIComponent(list)}`);
    xhr.setRequestHeader('authorization', `Bearer ${session.value?.ssid ?? ''}`);
    xhr.setRequestHeader('content-type', 'text/csv');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) setProgress(e.loaded / e.total);
    };
    xhr.upload.onload = () => {
      setProgress(1);
      setPhase('File sent; writing the last contacts…');
    };
    xhr.onerror = () => {
      setProgress(null);
      setPhase('The server cannot be reached. Check the connection and try again.');
    };
    xhr.onload = () => {
      setProgress(null);
      let json: { status?: string; code?: number; message?: string; data?: ImportResult } = {};
      try {
        json = JSON.parse(xhr.responseText) as typeof json;
      } catch {
        // not JSON: said below
      }
      if (json.status !== 'success' || !json.data) {
        return setPhase(
          json.code
            ? explain(Object.assign(new Error(json.message), { code: json.code })).text + (json.message ? ` (${json.message})` : '')
            : `Import failed (HTTP ${xhr.status}).`,
        );
      }
      const d = json.data;
      setResult(d);
      setPhase(`Imported ${d.rows} rows: ${d.added} added, ${d.updated} updated, ${d.rejectedCount} rejected.`);
      void reload();
    };
    xhr.send(file);
  };
  return (
    <form class="card" onSubmit={send} aria-label="Import contacts from a CSV file">
      <h3>Import a CSV file</h3>
      <p class="note">
        A header row with <code>number</code>, optionally <code>name</code> and <code>timezone</code>; every other column is a field of the contact. A number
        already in the list is updated.
      </p>
      <div class="field">
        <label for="import-list">List</label>
        <select id="import-list" value={clId || String(lists[0]?.clId ?? '')} onChange={(e) => setClId(e.currentTarget.value)}>
          {lists.map((l) => (
            <option value={String(l.clId)}>{l.name}</option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="import-file">CSV file</label>
        <input id="import-file" type="file" accept=".csv,text/csv" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
      </div>
      <button type="submit" disabled={lists.length === 0}>
        Import
      </button>
      {progress !== null && <progress id="import-progress" max={1} value={progress} aria-label="Import progress" />}
      <Status id="import-status" text={phase} />
      {result && result.rejected.length > 0 && (
        <ul class="plain" aria-label="Rejected rows">
          {result.rejected.slice(0, 20).map((r) => (
            <li>
              Line {r.line}: {r.message}
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}

const STATE_TEXT: Record<string, string> = { draft: 'Draft', running: 'Running', paused: 'Paused', stopped: 'Stopped', completed: 'Completed' };

function CampaignList({ campaigns, lists, reload }: { campaigns: Campaign[] | null; lists: ContactList[] | null; reload(): Promise<void> }) {
  const groups = useLookup('groups');
  const [watched, setWatched] = useState<number | null>(null);
  const [status, setStatus] = useState('');
  const act = async (c: Campaign, op: 'start' | 'pause' | 'stop' | 'delete') => {
    try {
      const res = await api<{ message: string }>(`campaign/${op}`, { campaignId: c.campaignId });
      setStatus(`${c.name}: ${res.message}.`);
      if (op === 'delete' && watched === c.campaignId) setWatched(null);
      await reload();
    } catch (err) {
      setStatus(`${c.name}: ${(err as { code?: number }).code === 1524 ? 'not possible in its present state.' : explain(err, 'agent').text}`);
    }
  };
  const manage = can('campaign.manage');
  const columns: Column<Campaign>[] = [
    { label: 'Campaign', cell: (c) => c.name },
    {
      label: 'State',
      cell: (c) => (
        <span class="state-badge" data-state={c.state}>
          {STATE_TEXT[c.state] ?? c.state}
        </span>
      ),
    },
    { label: 'Mode', cell: (c) => c.mode },
    { label: 'Lists', cell: (c) => c.clIds.map((id) => lists?.find((l) => l.clId === id)?.name ?? id).join(', ') },
    { label: 'Group', cell: (c) => nameOf(groups, c.groupId) },
    {
      label: 'Actions',
      cell: (c) => (
        <span class="inline">
          <button
            type="button"
            class="secondary"
            aria-pressed={watched === c.campaignId}
            onClick={() => setWatched(watched === c.campaignId ? null : c.campaignId)}
          >
            Live status<span class="visually-hidden"> of {c.name}</span>
          </button>
          {manage && (c.state === 'draft' || c.state === 'paused') && (
            <button type="button" onClick={() => void act(c, 'start')} aria-label={`${c.state === 'paused' ? 'Resume' : 'Start'} ${c.name}`}>
              {c.state === 'paused' ? 'Resume' : 'Start'}
            </button>
          )}
          {manage && c.state === 'running' && (
            <button type="button" class="secondary" onClick={() => void act(c, 'pause')} aria-label={`Pause ${c.name}`}>
              Pause
            </button>
          )}
          {manage && (c.state === 'draft' || c.state === 'running' || c.state === 'paused') && <ConfirmStop name={c.name} onConfirm={() => act(c, 'stop')} />}
          {manage && (c.state === 'draft' || c.state === 'stopped' || c.state === 'completed') && (
            <ConfirmDelete what={`the campaign ${c.name}`} onConfirm={() => act(c, 'delete')} />
          )}
        </span>
      ),
    },
  ];
  const current = campaigns?.find((c) => c.campaignId === watched);
  return (
    <section class="page-section" aria-labelledby="campaigns-title">
      <h2 id="campaigns-title">Campaigns</h2>
      {campaigns && <Table caption="Campaigns" columns={columns} rows={campaigns} rowKey={(c) => String(c.campaignId)} empty="No campaign yet." />}
      <Status id="campaign-action-status" text={status} />
      {current && <LiveStatus campaign={current} onState={(s) => s !== current.state && void reload()} />}
      {manage && <NewCampaign lists={lists ?? []} reload={reload} />}
    </section>
  );
}

/** Stop asks once more in place, as a delete does: a stopped campaign never dials again. */
function ConfirmStop({ name, onConfirm }: { name: string; onConfirm(): Promise<void> }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" class="danger" aria-label={`Stop ${name}`} onClick={() => setAsking(true)}>
        Stop
      </button>
    );
  return (
    <span class="inline" role="group" aria-label={`Stop ${name} for good?`}>
      <span>Stop for good?</span>
      <button type="button" class="danger" ref={(el) => el?.focus()} onClick={() => void onConfirm().finally(() => setAsking(false))}>
        Yes, stop
      </button>
      <button type="button" class="ghost" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

function LiveStatus({ campaign, onState }: { campaign: Campaign; onState(state: string): void }) {
  const [s, setS] = useState<CampaignStatus | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let live = true;
    const poll = async () => {
      try {
        const res = await api<{ data: CampaignStatus }>('campaign/status', { campaignId: campaign.campaignId });
        if (!live) return;
        setS(res.data);
        setError('');
        onState(res.data.state);
      } catch (err) {
        if (live) setError(explain(err).text);
      }
      if (live) timer = setTimeout(() => void poll(), POLL_MS);
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [campaign.campaignId, campaign.state]);
  return (
    <section class="card" aria-labelledby="live-title" id="campaign-live" data-campaign={campaign.campaignId}>
      <h3 id="live-title">{campaign.name}: live status</h3>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {s && (
        <dl class="figures">
          <dt>State</dt>
          <dd id="live-state" data-state={s.state}>
            {STATE_TEXT[s.state] ?? s.state}
          </dd>
          <dt>Calls in progress</dt>
          <dd>{s.lines}</dd>
          <dt>Dial level</dt>
          <dd>{s.dialLevel ?? '—'}</dd>
          <dt>Agents available · on a call · wrap-up</dt>
          <dd>
            {s.agents.available} · {s.agents.onCall} · {s.agents.wrapUp}
          </dd>
          <dt>Contacts to dial</dt>
          <dd id="live-dialable">{s.contacts.dialable}</dd>
          <dt>Contacts done / all</dt>
          <dd>
            {s.contacts.done} / {s.contacts.total}
          </dd>
          <dt>Abandon rate (window)</dt>
          <dd>{s.window.abandonRate === null ? '—' : `${s.window.abandonRate} %`}</dd>
        </dl>
      )}
    </section>
  );
}

function NewCampaign({ lists, reload }: { lists: ContactList[]; reload(): Promise<void> }) {
  const groups = useLookup('groups');
  const dids = useLookup('dids');
  const [form, setForm] = useState({ name: '', clIds: [] as number[], groupId: '', did: '', mode: 'progressive' });
  const [error, setError] = useState<{ field?: string; text: string } | null>(null);
  const [status, setStatus] = useState('');
  const create = async (ev: Event) => {
    ev.preventDefault();
    setError(null);
    try {
      const res = await api<{ data: { campaignId: number } }>('campaign/create', {
        name: form.name.trim(),
        clIds: form.clIds,
        groupId: form.groupId,
        did: form.did.trim(),
        mode: form.mode,
      });
      setStatus(`Campaign “${form.name.trim()}” created (${res.data.campaignId}): a draft until started.`);
      setForm({ ...form, name: '' });
      await reload();
    } catch (err) {
      const e = explain(err, 'general', ['name', 'clIds', 'groupId', 'did', 'mode']);
      // 1012 here: a contact list that does not exist; 1006: the group.
      const code = (err as { code?: number }).code;
      setError(code === 1012 ? { field: 'clIds', text: 'One of the lists does not exist.' } : code === 1006 ? { field: 'groupId', text: e.text } : e);
    }
  };
  const fieldError = (f: string) => (error?.field === f ? error.text : undefined);
  return (
    <form class="card" onSubmit={create} aria-label="New campaign" id="new-campaign">
      <h3>New campaign</h3>
      <div class="form-grid">
        <Field
          name="name"
          label="Name"
          required
          error={fieldError('name')}
          inputProps={{ value: form.name, onInput: (e) => setForm({ ...form, name: e.currentTarget.value }) }}
        />
        <Picker
          id="campaign-group"
          label="Group taking the calls"
          list={groups}
          value={form.groupId}
          onChange={(v) => setForm({ ...form, groupId: v })}
          any={groups ? 'Choose a group' : 'Group id'}
        />
        {dids ? (
          <Picker id="campaign-did" label="Caller id (DID)" list={dids} value={form.did} onChange={(v) => setForm({ ...form, did: v })} any="Choose a DID" />
        ) : (
          <Field
            name="did"
            label="Caller id (DID)"
            error={fieldError('did')}
            inputProps={{ value: form.did, onInput: (e) => setForm({ ...form, did: e.currentTarget.value }) }}
          />
        )}
        <div class="field">
          <label for="campaign-mode">Mode</label>
          <select id="campaign-mode" value={form.mode} onChange={(e) => setForm({ ...form, mode: e.currentTarget.value })}>
            <option value="preview">Preview: the agent asks for the next contact</option>
            <option value="progressive">Progressive: a dial per available agent</option>
            <option value="predictive">Predictive: paced to the abandon rate</option>
          </select>
        </div>
      </div>
      <fieldset aria-describedby={fieldError('clIds') ? 'clIds-error' : undefined}>
        <legend>Contact lists, dialled in this order</legend>
        {lists.length === 0 && <p class="note">Create a contact list first.</p>}
        {lists.map((l) => (
          <div class="field check">
            <input
              type="checkbox"
              id={`campaign-list-${l.clId}`}
              checked={form.clIds.includes(l.clId)}
              onChange={(e) => setForm({ ...form, clIds: e.currentTarget.checked ? [...form.clIds, l.clId] : form.clIds.filter((x) => x !== l.clId) })}
            />
            <label for={`campaign-list-${l.clId}`}>
              {l.name} ({l.contacts})
            </label>
          </div>
        ))}
        {fieldError('clIds') && (
          <p id="clIds-error" class="field-error" role="alert">
            {fieldError('clIds')}
          </p>
        )}
      </fieldset>
      {error && error.field !== 'name' && error.field !== 'clIds' && error.field !== 'did' && (
        <p class="error" role="alert">
          {error.text}
        </p>
      )}
      <button type="submit" id="campaign-create">
        Create campaign
      </button>
      <Status id="new-campaign-status" text={status} />
    </form>
  );
}
