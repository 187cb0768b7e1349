import { useState } from 'preact/hooks';
import { explain } from '../lib/errors.js';
import { api, can } from '../lib/session.js';
import { Field, Status, Table } from '../lib/ui.js';
import { ConfirmDelete, useFirstFocus, useSubmit } from './form.js';
import type { Group } from './people-data.js';

/** Groups: group/list (agent.view), and with group.manage group/create, group/update, group/delete (docs/api/group.md). */
function GroupForm({ group, done }: { group: Group | null; done(message: string): void }) {
  const [out, submit] = useSubmit('group', ['name', 'groupId'], async (data) => {
    const name = String(data.get('name') ?? '').trim();
    if (group) {
      await api('group/update', { groupId: group.groupId, name });
      done(`Group ${name} saved.`);
    } else {
      const id = String(data.get('groupId') ?? '').trim();
      const res = await api<{ data: { groupId: number } }>('group/create', { name, ...(id ? { groupId: id } : {}) });
      done(`Group ${name} created (id ${res.data.groupId}).`);
    }
    return '';
  });
  useFirstFocus('group-form');
  return (
    <form class="card" onSubmit={submit} aria-labelledby="group-form-title" id="group-form" noValidate>
      <h2 id="group-form-title">{group ? `Edit ${group.name}` : 'New group'}</h2>
      <div class="form-grid">
        <Field name="name" label="Name" error={out.errors.name} required inputProps={{ defaultValue: group?.name }} />
        {!group && <Field name="groupId" label="Id (blank: the next free one)" error={out.errors.groupId} inputProps={{ inputMode: 'numeric' }} />}
      </div>
      <div class="actions">
        <button type="submit" disabled={out.busy}>
          {group ? 'Save group' : 'Create group'}
        </button>
        <button type="button" class="ghost" onClick={() => done('')}>
          Cancel
        </button>
      </div>
      <Status text={out.status} id="group-form-status" />
    </form>
  );
}

export function GroupsSection({ groups, reload }: { groups: Group[]; reload(): Promise<void> }) {
  const [editing, setEditing] = useState<Group | 'new' | null>(null);
  const [status, setStatus] = useState('');
  const manage = can('group.manage');
  const finish = (message: string) => {
    setEditing(null);
    if (message) {
      setStatus(message);
      void reload();
    }
    document.getElementById(message ? 'groups-status' : 'btn-new-group')?.focus();
  };
  return (
    <section aria-labelledby="groups-title" class="section">
      <div class="actions">
        <h2 id="groups-title">Groups</h2>
        {manage && editing === null && (
          <button type="button" id="btn-new-group" onClick={() => setEditing('new')}>
            New group
          </button>
        )}
      </div>
      {editing && <GroupForm key={editing === 'new' ? 'new' : editing.groupId} group={editing === 'new' ? null : editing} done={finish} />}
      <p class="status" role="status" id="groups-status" tabIndex={-1}>
        {status}
      </p>
      <Table
        caption={`${groups.length} group${groups.length === 1 ? '' : 's'}`}
        rows={groups}
        rowKey={(g) => String(g.groupId)}
        empty="No groups yet."
        columns={[
          { label: 'Id', cell: (g) => g.groupId, num: true },
          { label: 'Name', cell: (g) => g.name },
          { label: 'Agents', cell: (g) => g.agentCount, num: true },
          ...(manage
            ? [
                {
                  label: 'Actions',
                  cell: (g: Group) => (
                    <span class="inline">
                      <button type="button" class="secondary" aria-label={`Edit ${g.name}`} onClick={() => setEditing(g)}>
                        Edit
                      </button>
                      <ConfirmDelete
                        what={g.name}
                        onConfirm={async () => {
                          try {
                            await api('group/delete', { groupId: g.groupId });
                            setStatus(`Group ${g.name} deleted.`);
                            await reload();
                            // The row and its buttons are gone: the focus goes to what happened.
                            document.getElementById('groups-status')?.focus();
                          } catch (err) {
                            setStatus(explain(err, 'group').text);
                          }
                        }}
                      />
                    </span>
                  ),
                },
              ]
            : []),
        ]}
      />
    </section>
  );
}
