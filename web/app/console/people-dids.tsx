import { useEffect, useState } from 'preact/hooks';
import { explain } from '../lib/errors.js';
import { when } from '../lib/format.js';
import { api } from '../lib/session.js';
import { Field, Status, Table } from '../lib/ui.js';
import { ConfirmDelete, useSubmit } from './form.js';

/** The account's numbers: did/list, did/create, did/delete, all with number.manage (docs/api/did.md). */
interface Did {
  did: string;
  name: string;
  create_date: number;
}

export function DidsSection() {
  const [dids, setDids] = useState<Did[] | null>(null);
  const [status, setStatus] = useState('');
  const load = async () => {
    try {
      setDids((await api<{ data: Did[] }>('did/list', {})).data);
    } catch (err) {
      setStatus(explain(err, 'did').text);
    }
  };
  useEffect(() => void load(), []);
  const [out, submit] = useSubmit('did', ['did', 'name'], async (data, form) => {
    const res = await api<{ data: { did: string } }>('did/create', { did: String(data.get('did') ?? '').trim(), name: String(data.get('name') ?? '').trim() });
    form.reset();
    await load();
    return `Number ${res.data.did} added.`;
  });
  return (
    <section aria-labelledby="dids-title" class="section">
      <h2 id="dids-title">Numbers (DIDs)</h2>
      <form class="card row-form" onSubmit={submit} aria-label="Add a number" id="did-form" noValidate>
        <Field name="did" label="Number" type="tel" error={out.errors.did} required hint="3 to 15 digits" />
        <Field name="name" label="Name (optional)" error={out.errors.name} />
        <button type="submit" disabled={out.busy}>
          Add number
        </button>
        <Status text={out.status} id="did-form-status" />
      </form>
      <p class="status" role="status" id="dids-status" tabIndex={-1}>
        {status}
      </p>
      {dids && (
        <Table
          caption={`${dids.length} number${dids.length === 1 ? '' : 's'}`}
          rows={dids}
          rowKey={(d) => d.did}
          empty="No numbers yet."
          columns={[
            { label: 'Number', cell: (d) => d.did },
            { label: 'Name', cell: (d) => d.name || '—' },
            { label: 'Added', cell: (d) => when(d.create_date) },
            {
              label: 'Actions',
              cell: (d) => (
                <ConfirmDelete
                  what={d.did}
                  onConfirm={async () => {
                    try {
                      await api('did/delete', { did: d.did });
                      setStatus(`Number ${d.did} removed.`);
                      await load();
                      // The row and its buttons are gone: the focus goes to what happened.
                      document.getElementById('dids-status')?.focus();
                    } catch (err) {
                      setStatus(explain(err, 'did').text);
                    }
                  }}
                />
              ),
            },
          ]}
        />
      )}
    </section>
  );
}
