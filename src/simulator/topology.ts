import type { Transport } from './transport.js';
import type { TrafficConfig } from './types.js';

export type Topology = Pick<TrafficConfig, 'routes' | 'groups' | 'callers'>;

export class TopologyError extends Error {}

/**
 * The account's call-centre shape, read through the API with the simulator's
 * credentials: active agents per group (`Agent/list`), DIDs (`did/list`) and
 * known callers (`Directory/search` by leading digit). Each DID is routed to
 * one group with agents, in turn. A switch token may not read these: pass a
 * topology file instead (see docs/simulator.md).
 */
export async function discoverTopology(api: Transport, maxCallers = 500): Promise<Topology> {
  const agents = await api.post('Agent/list', { quick: true });
  if (agents.status !== 'success') throw new TopologyError(`Agent/list answered ${agents.code} ${agents.message ?? ''}`.trim());
  const byGroup = new Map<number, number[]>();
  for (const a of agents.response as { unique_id: number; group: number[]; status: number }[]) {
    if (a.status !== 1) continue;
    for (const g of a.group) byGroup.set(g, [...(byGroup.get(g) ?? []), a.unique_id]);
  }
  const groups = [...byGroup].map(([groupId, agentIds]) => ({ groupId, agentIds })).sort((a, b) => a.groupId - b.groupId);
  const dids = await api.post('did/list', {});
  if (dids.status !== 'success') throw new TopologyError(`did/list answered ${dids.code} ${dids.message ?? ''}`.trim());
  const numbers = (dids.data as { did: string }[]).map((d) => d.did).sort();
  if (!groups.length) throw new TopologyError('the account has no active agent in any group');
  if (!numbers.length) throw new TopologyError('the account has no DID');
  const routes = numbers.map((did, i) => ({ did, groupId: groups[i % groups.length]!.groupId }));
  // Every group with agents gets traffic, even when there are fewer DIDs than groups.
  for (let i = numbers.length; i < groups.length; i++) routes.push({ did: numbers[i % numbers.length]!, groupId: groups[i]!.groupId });

  const callers = new Set<string>();
  for (let d = 1; d <= 9 && callers.size < maxCallers; d++) {
    const found = await api.post('Directory/search', { contact: String(d), project: 'name', limit: Math.min(500, maxCallers - callers.size) });
    if (found.status !== 'success') continue;
    for (const c of found.data as { contact: string | number }[]) callers.add(String(c.contact));
  }
  return { routes, groups, callers: [...callers] };
}

/** A topology from a JSON file's content: `{routes: [{did, groupId}], groups: [{groupId, agentIds}], callers?: []}`. */
export function parseTopology(json: string): Topology {
  const t = JSON.parse(json) as Partial<Topology>;
  if (!Array.isArray(t.routes) || !t.routes.length || !Array.isArray(t.groups) || !t.groups.length) {
    throw new TopologyError('a topology needs non-empty "routes" and "groups"');
  }
  return { routes: t.routes, groups: t.groups, callers: Array.isArray(t.callers) ? t.callers.map(String) : [] };
}
