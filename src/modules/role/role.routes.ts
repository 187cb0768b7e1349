import { agentError, fail } from '../../errors/catalogue.js';
import { visibleSubtreeOf } from '../../auth/principal.js';
import { defineOperation } from '../../http/operation.js';
import { toId } from '../../http/ids.js';
import { isMilliseconds, secondsExpected } from '../../time/unix.js';
import { MAX_ROLE_PAGE } from './role.service.js';
import { CreateRoleBody, DeleteRoleBody, ListRolesBody, ListRolesResponse, MessageResponse, RoleIdResponse, UpdateRoleBody } from './role.schemas.js';
import type { RoleService } from './role.service.js';

function pageNumber(value: number | string | undefined, def: number, max: number, field: string): number {
  const n = value === undefined ? def : Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw fail(1000, `${field} must be an integer from 1 to ${max}`);
  return n;
}

export function roleOperations({ roles }: { roles: RoleService }) {
  return [
    defineOperation({
      module: 'role',
      name: 'create',
      writes: true,
      audit: { target: 'role', created: ({ result }) => (result as { data: { roleId: number } }).data.roleId },
      summary: 'Create a role (a set of permissions and a visibility setting)',
      permission: 'role.manage',
      errorModule: 'agent',
      body: CreateRoleBody,
      response: RoleIdResponse,
      errors: [1000, 1014, 1015, 1047, 1503, 1508],
      examples: {
        request: { name: 'Supervisor', permissions: ['agent.view', 'agent.live', 'queue.view', 'queue.takeover'], can_see: 1 },
        response: { message: 'Role created', data: { roleId: 7 } },
      },
      async handler({ principal, body }) {
        const roleId = await roles.create(principal, { ...body, name: body.name.trim() });
        return { message: 'Role created', data: { roleId } };
      },
    }),
    defineOperation({
      module: 'role',
      name: 'update',
      writes: true,
      audit: { target: 'role', id: ({ body }) => toId(body.roleId) },
      summary: 'Change a role (merge: fields not sent keep their values)',
      permission: 'role.manage',
      errorModule: 'agent',
      body: UpdateRoleBody,
      response: MessageResponse,
      errors: [1000, 1014, 1015, 1047, 1503, 1508],
      examples: {
        request: { roleId: 7, permissions: ['agent.view', 'agent.live', 'queue.view', 'queue.takeover', 'analysis.view'] },
        response: { message: 'Role updated' },
      },
      async handler({ principal, body }) {
        const { roleId, ...patch } = body;
        await roles.update(principal, toId(roleId), { ...patch, name: patch.name?.trim() });
        return { message: 'Role updated' };
      },
    }),
    defineOperation({
      module: 'role',
      name: 'delete',
      writes: true,
      audit: { target: 'role', id: ({ body }) => toId(body.roleId) },
      summary: 'Delete a role (the row stays, flagged deleted; its agents lose its permissions)',
      permission: 'role.manage',
      errorModule: 'agent',
      body: DeleteRoleBody,
      response: MessageResponse,
      errors: [1000, 1014, 1015, 1047, 1503],
      examples: { request: { roleId: 7 }, response: { message: 'Role deleted' } },
      async handler({ principal, body }) {
        await roles.remove(principal.accountId, toId(body.roleId));
        return { message: 'Role deleted' };
      },
    }),
    defineOperation({
      module: 'role',
      name: 'list',
      writes: false,
      summary: 'The roles with their agent counts, filtered and paged',
      permission: 'role.view',
      errorModule: 'agent',
      body: ListRolesBody,
      response: ListRolesResponse,
      errors: [1000, 1014, 1015, 1047, 1502, 1508],
      examples: {
        request: { status: 'active', search_params: { name: 'super' }, page: 1, limit: 10 },
        response: {
          response: [
            {
              _id: '7',
              name: 'Supervisor',
              can_see: 1,
              create_date: 1768035600,
              create_by: '2',
              create_by_type: 'client',
              status: 1,
              user_id: '2',
              unique_id: 7,
              agCount: 2,
              permissions: ['agent.view', 'agent.live', 'queue.view', 'queue.takeover', 'analysis.view'],
            },
          ],
          currentPage: 1,
          totalPages: 1,
          totalRecords: 1,
        },
      },
      async handler({ principal, body }) {
        const page = pageNumber(body.page, 1, 1_000_000, 'page');
        const limit = pageNumber(body.limit, 10, MAX_ROLE_PAGE, 'limit');
        const sp = body.search_params ?? {};
        for (const k of ['from', 'to'] as const) {
          const v = sp[k];
          if (v !== undefined && isMilliseconds(v)) throw agentError(1502, secondsExpected(`search_params.${k}`, v));
        }
        if (sp.from !== undefined && sp.to !== undefined && sp.from > sp.to) throw agentError(1502, 'search_params.from is after search_params.to');
        return roles.list(
          principal.accountId,
          {
            status: body.status,
            nameContains: sp.name,
            createdFrom: sp.from,
            createdTo: sp.to,
            heldByAgent: body.agentid === undefined || body.agentid === null || body.agentid === '' ? undefined : toId(body.agentid),
            // An agent the caller cannot see answers like one that does not exist.
            agentWithin: visibleSubtreeOf(principal),
          },
          page,
          limit,
        );
      },
    }),
  ];
}
