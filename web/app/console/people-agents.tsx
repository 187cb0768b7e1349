import { useEffect, useState } from 'preact/hooks';
import { explain } from '../lib/errors.js';
import { api, can } from '../lib/session.js';
import { Field, Status, Table } from '../lib/ui.js';
import { Choices, ConfirmDelete, SelectField, useFirstFocus, useSubmit } from './form.js';
import type { Group, Role } from './people-data.js';

/** Agents: Agent/list, and with agent.manage Agent/create, Agent/update, Agent/delete (docs/api/agent.md). */
export interface AgentRecord {
  unique_id: number;
  name: string;
  email: string;
  phone: string;
  call_pass: string;
  dest_type: 'MOBILE' | 'SIP';
  dest_value: string;
  role: string;
  roleName?: string;
  group: number[];
  groupMapping?: Record<string, { receive_call: 'Y' | 'N' }>;
  status: number;
}

const FIELDS = ['name', 'email', 'password', 'phone', 'call_pass', 'dest_type', 'dest_value', 'role', 'group', 'status'];

function AgentForm({ agent, groups, roles, done }: { agent: AgentRecord | null; groups: Group[]; roles: Role[] | null; done(message: string): void }) {
  const [out, submit] = useSubmit('agent', FIELDS, async (data) => {
    const body: Record<string, unknown> = {};
    for (const f of ['name', 'email', 'password', 'phone', 'call_pass', 'dest_type', 'dest_value', 'role', 'status']) {
      const v = String(data.get(f) ?? '').trim();
      // An edit sends only what changed (Agent/update merges); an empty password keeps the old one.
      if (f === 'password' && v === '') continue;
      if (agent && f !== 'password' && String((agent as unknown as Record<string, unknown>)[f] ?? '') === v) continue;
      if (!agent && f === 'status') continue;
      body[f] = f === 'status' ? Number(v) : v;
    }
    const chosen = new Set(data.getAll('group').map(String));
    const mapping: Record<string, { receive_call: 'Y' | 'N' }> = {};
    for (const g of groups) {
      const was = agent?.group.includes(g.groupId) ?? false;
      // Agent/update's group works as the group mapping: listed groups are set, the others kept; N unmaps receiving.
      if (chosen.has(String(g.groupId))) mapping[g.groupId] = { receive_call: 'Y' };
      else if (was) mapping[g.groupId] = { receive_call: 'N' };
    }
    if (Object.keys(mapping).length && (!agent || JSON.stringify(mapping) !== JSON.stringify(agent.groupMapping ?? {}))) body.group = mapping;
    if (agent) {
      await api('Agent/update', { agentId: agent.unique_id, ...body });
      done(`Agent ${String(body.name ?? agent.name)} saved.`);
    } else {
      const res = await api<{ data: { agentId: number } }>('Agent/create', body);
      done(`Agent ${String(body.name)} created (id ${res.data.agentId}).`);
    }
    return '';
  });
  const e = out.errors;
  const receiving = (g: Group) => agent?.groupMapping?.[g.groupId]?.receive_call === 'Y';
  useFirstFocus('agent-form');
  return (
    <form class="card" onSubmit={submit} aria-labelledby="agent-form-title" id="agent-form" noValidate>
      <h2 id="agent-form-title">{agent ? `Edit ${agent.name}` : 'New agent'}</h2>
      <div class="form-grid">
        <Field name="name" label="Name" error={e.name} required inputProps={{ defaultValue: agent?.name }} />
        <Field name="email" label="E-mail (the login)" type="email" error={e.email} required inputProps={{ defaultValue: agent?.email }} />
        <Field
          name="password"
          label={agent ? 'New password (blank: unchanged)' : 'Password'}
          type="password"
          autocomplete="new-password"
          error={e.password}
          required={!agent}
          hint="8 characters at least"
        />
        <Field name="phone" label="Mobile number" type="tel" error={e.phone} required inputProps={{ defaultValue: agent?.phone }} />
        <Field
          name="call_pass"
          label="Call password"
          error={e.call_pass}
          required
          hint="8 digits, said on the phone"
          inputProps={{ defaultValue: agent?.call_pass, inputMode: 'numeric' }}
        />
        <SelectField
          name="dest_type"
          label="Calls go to"
          error={e.dest_type}
          options={[
            ['MOBILE', 'Mobile number'],
            ['SIP', 'SIP address'],
          ]}
          selected={agent?.dest_type ?? 'MOBILE'}
        />
        <Field name="dest_value" label="Destination" error={e.dest_value} required inputProps={{ defaultValue: agent?.dest_value }} />
        {roles ? (
          <SelectField
            name="role"
            label="Role"
            error={e.role}
            required
            options={roles.filter((r) => r.status === 1).map((r): [string, string] => [String(r._id), r.name])}
            selected={agent?.role}
          />
        ) : (
          <Field name="role" label="Role id" error={e.role} required inputProps={{ defaultValue: agent?.role, inputMode: 'numeric' }} />
        )}
        {agent && (
          <SelectField
            name="status"
            label="Status"
            error={e.status}
            options={[
              ['1', 'Active'],
              ['0', 'Inactive (cannot sign in)'],
            ]}
            selected={String(agent.status)}
          />
        )}
      </div>
      {groups.length > 0 && (
        <Choices name="group" legend="Receives calls of the groups" error={e.group}>
          {groups.map((g) => (
            <label class="check">
              <input type="checkbox" name="group" value={String(g.groupId)} defaultChecked={receiving(g)} /> {g.name}
            </label>
          ))}
        </Choices>
      )}
      <div class="actions">
        <button type="submit" disabled={out.busy}>
          {agent ? 'Save agent' : 'Create agent'}
        </button>
        <button type="button" class="ghost" onClick={() => done('')}>
          Cancel
        </button>
      </div>
      <Status text={out.status} id="agent-form-status" />
    </form>
  );
}

export function AgentsSection({ groups, roles }: { groups: Group[]; roles: Role[] | null }) {
  const [agents, setAgents] = useState<AgentRecord[] | null>(null);
  const [editing, setEditing] = useState<AgentRecord | 'new' | null>(null);
  const [status, setStatus] = useState('');
  const load = async () => {
    try {
      setAgents((await api<{ response: AgentRecord[] }>('Agent/list', {})).response);
    } catch (err) {
      setStatus(explain(err, 'agent').text);
    }
  };
  useEffect(() => void load(), []);
  const manage = can('agent.manage');
  const groupName = (id: number) => groups.find((g) => g.groupId === id)?.name ?? String(id);
  const finish = (message: string) => {
    setEditing(null);
    if (message) {
      setStatus(message);
      void load();
    }
    document.getElementById(message ? 'agents-status' : 'btn-new-agent')?.focus();
  };
  return (
    <section aria-labelledby="agents-title" class="section">
      <div class="actions">
        <h2 id="agents-title">Agents</h2>
        {manage && editing === null && (
          <button type="button" id="btn-new-agent" onClick={() => setEditing('new')}>
            New agent
          </button>
        )}
      </div>
      {editing && (
        <AgentForm key={editing === 'new' ? 'new' : editing.unique_id} agent={editing === 'new' ? null : editing} groups={groups} roles={roles} done={finish} />
      )}
      <p class="status" role="status" id="agents-status" tabIndex={-1}>
        {status}
      </p>
      {agents && (
        <Table
          caption={`${agents.length} agent${agents.length === 1 ? '' : 's'}`}
          rows={agents}
          rowKey={(a) => String(a.unique_id)}
          empty="No agents yet."
          columns={[
            { label: 'Name', cell: (a) => a.name },
            { label: 'E-mail', cell: (a) => a.email },
            { label: 'Mobile', cell: (a) => a.phone },
            { label: 'Role', cell: (a) => a.roleName ?? a.role },
            { label: 'Groups', cell: (a) => a.group.map(groupName).join(', ') || '—' },
            { label: 'Status', cell: (a) => (a.status === 1 ? 'Active' : 'Inactive') },
            ...(manage
              ? [
                  {
                    label: 'Actions',
                    cell: (a: AgentRecord) => (
                      <span class="inline">
                        <button type="button" class="secondary" aria-label={`Edit ${a.name}`} onClick={() => setEditing(a)}>
                          Edit
                        </button>
                        <ConfirmDelete
                          what={a.name}
                          onConfirm={async () => {
                            try {
                              await api('Agent/delete', { agentId: a.unique_id });
                              setStatus(`Agent ${a.name} deleted.`);
                              await load();
                              // The row and its buttons are gone: the focus goes to what happened.
                              document.getElementById('agents-status')?.focus();
                            } catch (err) {
                              setStatus(explain(err, 'agent').text);
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
      )}
    </section>
  );
}
