import { api } from '../lib/session.js';

/** What the People sections share: the groups (group/list) and the roles (role/list, every page). */
export interface Group {
  groupId: number;
  name: string;
  agentCount: number;
}

export interface Role {
  _id: string;
  name: string;
  can_see: number;
  status: number;
  agCount: number;
  permissions: string[];
}

export async function loadGroups(): Promise<Group[]> {
  return (await api<{ data: Group[] }>('group/list', {})).data;
}

/** role/list answers at most 100 a page: read them all. */
export async function loadRoles(): Promise<Role[]> {
  const all: Role[] = [];
  for (let page = 1; ; page++) {
    const res = await api<{ response: Role[]; totalPages: number }>('role/list', { page, limit: 100 });
    all.push(...res.response);
    if (page >= res.totalPages) return all;
  }
}
