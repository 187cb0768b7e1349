import { useState } from 'preact/hooks';
import { explain } from '../lib/errors.js';
import { api, can } from '../lib/session.js';
import { Field, Status, Table } from '../lib/ui.js';
import { Choices, ConfirmDelete, SelectField, useFirstFocus, useSubmit } from './form.js';
import type { Role } from './people-data.js';
import { PERMISSION_TEXT } from './permissions.js';

function RoleForm({ role, done }: { role: Role | null; done(message: string): void }) {
  const [out, submit] = useSubmit('role', ['name', 'permissions', 'can_see', 'status'], async (data) => {
    const body = {
      name: String(data.get('name') ?? '').trim(),
      permissions: data.getAll('permissions').map(String),
      can_see: Number(data.get('can_see')),
      status: Number(data.get('status')),
    };
    if (role) {
      await api('role/update', { roleId: role._id, ...body });
      done(`Role ${body.name} saved.`);
    } else {
      const res = await api<{ data: { roleId: number } }>('role/create', body);
      done(`Role ${body.name} created (id ${res.data.roleId}).`);
    }
    return '';
  });
  const held = new Set(role?.permissions ?? []);
  useFirstFocus('role-form');
  return (
    <form class="card" onSubmit={submit} aria-labelledby="role-form-title" id="role-form" noValidate>
      <h2 id="role-form-title">{role ? `Edit ${role.name}` : 'New role'}</h2>
      <div class="form-grid">
        <Field name="name" label="Name" error={out.errors.name} required inputProps={{ defaultValue: role?.name }} />
        <SelectField
          name="can_see"
          label="Sees"
          error={out.errors.can_see}
          options={[
            ['1', 'Every agent of the account'],
            ['0', 'Itself and the agents below it'],
          ]}
          selected={String(role?.can_see ?? 1)}
        />
        <SelectField
          name="status"
          label="Status"
          error={out.errors.status}
          options={[
            ['1', 'Active'],
            ['0', 'Inactive (grants nothing)'],
          ]}
          selected={String(role?.status ?? 1)}
        />
      </div>
      <Choices name="permissions" legend="Permissions" error={out.errors.permissions}>
        <div class="check-grid">
          {PERMISSION_TEXT.map(([p, text]) => (
            <label class="check">
              <input type="checkbox" name="permissions" value={p} defaultChecked={held.has(p)} /> {text} <code>{p}</code>
            </label>
          ))}
        </div>
      </Choices>
      <div class="actions">
        <button type="submit" disabled={out.busy}>
          {role ? 'Save role' : 'Create role'}
        </button>
        <button type="button" class="ghost" onClick={() => done('')}>
          Cancel
        </button>
      </div>
      <Status text={out.status} id="role-form-status" />
    </form>
  );
}

export function RolesSection({ roles, reload }: { roles: Role[]; reload(): Promise<void> }) {
  const [editing, setEditing] = useState<Role | 'new' | null>(null);
  const [status, setStatus] = useState('');
  const manage = can('role.manage');
  const finish = (message: string) => {
    setEditing(null);
    if (message) {
      setStatus(message);
      void reload();
    }
    document.getElementById(message ? 'roles-status' : 'btn-new-role')?.focus();
  };
  return (
    <section aria-labelledby="roles-title" class="section">
      <div class="actions">
        <h2 id="roles-title">Roles</h2>
        {manage && editing === null && (
          <button type="button" id="btn-new-role" onClick={() => setEditing('new')}>
            New role
          </button>
        )}
      </div>
      {editing && <RoleForm key={editing === 'new' ? 'new' : editing._id} role={editing === 'new' ? null : editing} done={finish} />}
      <p class="status" role="status" id="roles-status" tabIndex={-1}>
        {status}
      </p>
      <Table
        caption={`${roles.length} role${roles.length === 1 ? '' : 's'}`}
        rows={roles}
        rowKey={(r) => r._id}
        empty="No roles yet."
        columns={[
          { label: 'Name', cell: (r) => r.name },
          { label: 'Agents', cell: (r) => r.agCount, num: true },
          { label: 'Sees', cell: (r) => (r.can_see === 1 ? 'everyone' : 'below itself') },
          { label: 'Status', cell: (r) => (r.status === 1 ? 'Active' : 'Inactive') },
          { label: 'Permissions', cell: (r) => <span class="wrap">{r.permissions.join(', ') || 'none'}</span> },
          ...(manage
            ? [
                {
                  label: 'Actions',
                  cell: (r: Role) => (
                    <span class="inline">
                      <button type="button" class="secondary" aria-label={`Edit ${r.name}`} onClick={() => setEditing(r)}>
                        Edit
                      </button>
                      <ConfirmDelete
                        what={r.name}
                        onConfirm={async () => {
                          try {
                            await api('role/delete', { roleId: r._id });
                            setStatus(`Role ${r.name} deleted.`);
                            await reload();
                            // The row and its buttons are gone: the focus goes to what happened.
                            document.getElementById('roles-status')?.focus();
                          } catch (err) {
                            setStatus(explain(err, 'role').text);
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
