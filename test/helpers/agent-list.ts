import type { Harness } from './harness.js';
import type { Session } from './factories.js';

/** The agent record of Agent/list (the spec's agent record table, plus cad and groupMapping). */
export interface AgentRecord {
  name: string;
  favorite: string;
  email: string;
  phone: string;
  address: string;
  dest_type: string;
  dest_value: string;
  call_pass: string;
  password: string;
  role: string;
  roleName: string;
  parent: string;
  create_date: number;
  create_by: string;
  create_by_type: string;
  user_id: string;
  unique_id: number;
  allowDid: string;
  status: number;
  isDeleted: number;
  preDeleted: number;
  cad: number;
  group: number[];
  groupNames: Array<Record<string, string>>;
  groupMapping: Record<string, { receive_call: string }>;
  working: Array<{ wDays: string[]; from: number; to: number; agentId: number }>;
}

/** Agent/list records (fails the test on an error answer). */
export async function listAgents(h: Harness, session: Session, filter: Record<string, unknown> = {}): Promise<AgentRecord[]> {
  const res = await h.post<{ response: AgentRecord[] }>('/api/v2/Agent/list', { ssid: session.ssid, ...filter });
  if (res.body.status !== 'success') throw new Error(`Agent/list failed: ${JSON.stringify(res.body)}`);
  return res.body.response;
}

/** One agent's record, or undefined when the caller cannot see it. */
export async function agentRecord(h: Harness, session: Session, agentId: number): Promise<AgentRecord | undefined> {
  return (await listAgents(h, session, { agentId }))[0];
}
