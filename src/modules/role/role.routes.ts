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
      summary: 'Create a role (a set of permissions and a visibility setting)',
      permission: 'role.manage',
      errorModule: 'agent',
      body: CreateRoleBody,
      response: RoleIdResponse,
      errors: [1000, 1014, 1015, 1047, 1503, 1508],
      async handler({ principal, body }) {
        const roleId = await roles.create(principal, { ...body, name: body.name.trim() });
        return { message: 'Role created', data: { roleId } };
      },
    }),
    defineOperation({
      module: 'role',
      name: 'update',
      summary: 'Change a role (merge: fields not sent keep their values)',
      permission: 'role.manage',
      errorModule: 'agent',
      body: UpdateRoleBody,
      response: MessageResponse,
      errors: [1000, 1014, 1015, 1047, 1503, 1508],
      async handler({ principal, body }) {
        const { roleId, ...patch } = body;
        await roles.update(principal, toId(roleId), { ...patch, name: patch.name?.trim() });
        return { message: 'Role updated' };
      },
    }),
    defineOperation({
      module: 'role',
      name: 'delete',
      summary: 'Delete a role (the row stays, flagged deleted; its agents lose its permissions)',
      permission: 'role.manage',
      errorModule: 'agent',
      body: DeleteRoleBody,
      response: MessageResponse,
      errors: [1000, 1014, 1015, 1047, 1503],
      async handler({ principal, body }) {
        await roles.remove(principal.accountId, toId(body.roleId));
        return { message: 'Role deleted' };
      },
    }),
    defineOperation({
      module: 'role',
      name: 'list',
      summary: 'The roles with their agent counts, filtered and paged',
      permission: 'role.view',
      errorModule: 'agent',
      body: ListRolesBody,
      response: ListRolesResponse,
      errors: [1000, 1014, 1015, 1047, 1502, 1508],
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
