import { useEffect, useState } from 'preact/hooks';
import { api, can } from '../lib/session.js';

/**
 * The names the console's filters offer (groups, agents, campaigns, DIDs), each read only when the
 * principal may read it; without the permission the list is empty and the page asks for an id
 * instead. Read again on each visit of a page (a page mounts once per visit).
 */
export interface Named {
  id: string;
  name: string;
}

const readers: Record<string, { permission: string; read(): Promise<Named[]> }> = {
  groups: {
    permission: 'agent.view',
    read: async () => (await api<{ data: Array<{ groupId: number; name: string }> }>('group/list')).data.map((g) => ({ id: String(g.groupId), name: g.name })),
  },
  agents: {
    permission: 'agent.view',
    read: async () =>
      (await api<{ response: Array<{ unique_id: number; nm?: string; name?: string }> }>('Agent/list', { quick: true })).response.map((a) => ({
        id: String(a.unique_id),
        name: a.nm ?? a.name ?? String(a.unique_id),
      })),
  },
  campaigns: {
    permission: 'campaign.view',
    read: async () =>
      (await api<{ data: Array<{ campaignId: number; name: string }> }>('campaign/list')).data.map((c) => ({ id: String(c.campaignId), name: c.name })),
  },
  dids: {
    permission: 'number.manage',
    read: async () => (await api<{ data: Array<{ did: string; name: string }> }>('did/list')).data.map((d) => ({ id: d.did, name: d.name || d.did })),
  },
};

export type LookupKind = keyof typeof readers;

/** The list of `kind`, or null while it loads (and for good when the role may not read it). */
export function useLookup(kind: 'groups' | 'agents' | 'campaigns' | 'dids'): Named[] | null {
  const r = readers[kind]!;
  const [list, setList] = useState<Named[] | null>(null);
  useEffect(() => {
    if (!can(r.permission)) return;
    r.read()
      .then(setList)
      .catch(() => setList([]));
  }, [kind]);
  return list;
}

export function nameOf(list: Named[] | null, id: string | number | null | undefined): string {
  if (id === null || id === undefined) return '—';
  return list?.find((n) => n.id === String(id))?.name ?? String(id);
}

/** A select of `list` with "every …" first; a number field when the list could not be read. */
export function Picker({
  id,
  label,
  list,
  value,
  onChange,
  any = 'All',
}: {
  id: string;
  label: string;
  list: Named[] | null;
  value: string;
  onChange(v: string): void;
  any?: string | null;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {list ? (
        <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
          {any !== null && <option value="">{any}</option>}
          {list.map((n) => (
            <option value={n.id}>{n.name === n.id ? n.name : `${n.name} (${n.id})`}</option>
          ))}
        </select>
      ) : (
        <input id={id} inputMode="numeric" value={value} placeholder={any ?? ''} onChange={(e) => onChange(e.currentTarget.value.trim())} />
      )}
    </div>
  );
}
