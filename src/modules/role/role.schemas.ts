import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';
import { IdSchema } from '../../http/ids.js';
import { MAX_ROLE_PAGE } from './role.service.js';

const RoleName = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'Role name (not blank)' });
const Permissions = Type.Array(Type.String({ maxLength: 64 }), {
  maxItems: 50,
  description: 'Permissions of PRODUCT.md §4 (agent.view, agent.manage, …); an unknown one is 1503',
});
const CanSee = Type.Union([Type.Literal(0), Type.Literal(1)], { description: '1: sees every agent; 0: only agents below in the parent tree' });
const Status = Type.Union([Type.Literal(0), Type.Literal(1)], { 'x-code': 1508, description: '1 active, 0 inactive (an inactive role grants nothing)' });
const RoleId = IdSchema({ code: 1503, description: 'Role id' });

export const CreateRoleBody = Type.Object({ name: RoleName, permissions: Permissions, can_see: Type.Optional(CanSee), status: Type.Optional(Status) });
export const UpdateRoleBody = Type.Object({
  roleId: RoleId,
  name: Type.Optional(RoleName),
  permissions: Type.Optional(Permissions),
  can_see: Type.Optional(CanSee),
  status: Type.Optional(Status),
});
export const DeleteRoleBody = Type.Object({ roleId: RoleId });

const PageNumber = (def: number, max: number, what: string) =>
  Type.Union([Type.Integer({ minimum: 1, maximum: max }), Type.String({ pattern: '^[0-9]{1,6}$' })], { default: def, description: what });

export const ListRolesBody = Type.Object({
  agentid: Type.Optional(
    Type.Union([IdSchema(), Type.Literal(''), Type.Null()], {
      description: 'Only the role held by this agent (none when it is unknown); null or "": no filter',
    }),
  ),
  status: Type.Optional(
    Type.Union([Type.Literal('active'), Type.Literal('inactive'), Type.Literal('deleted')], {
      'x-code': 1508,
      description: 'active: status 1, inactive: status 0 (both non-deleted); deleted: deleted roles. Omitted: every non-deleted role',
    }),
  ),
  search_params: Type.Optional(
    Type.Object(
      {
        name: Type.Optional(Type.String({ maxLength: 100, description: 'Name contains (case-insensitive)' })),
        from: Type.Optional(Type.Integer({ minimum: 0, description: 'Created at or after (Unix seconds; over 10^11, i.e. milliseconds: 1502)' })),
        to: Type.Optional(Type.Integer({ minimum: 0, description: 'Created at or before (Unix seconds; over 10^11, i.e. milliseconds: 1502)' })),
      },
      { additionalProperties: false, 'x-code': 1502, description: 'Extra filters; an unknown key or a bad value is 1502' },
    ),
  ),
  page: Type.Optional(PageNumber(1, 1_000_000, 'Page, from 1 (default 1)')),
  limit: Type.Optional(PageNumber(10, MAX_ROLE_PAGE, `Records per page, default 10, at most ${MAX_ROLE_PAGE}`)),
});

export const RoleRecordSchema = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  can_see: Type.Integer(),
  create_date: Type.Integer({ description: 'Unix seconds' }),
  create_by: Type.String(),
  create_by_type: Type.String(),
  status: Type.Integer({ description: '1 active, 0 inactive' }),
  user_id: Type.String(),
  unique_id: Type.Integer(),
  agCount: Type.Integer({ description: 'Non-deleted agents holding the role' }),
  permissions: Type.Array(Type.String()),
});

export const RoleIdResponse = SuccessSchema({ message: Type.String(), data: Type.Object({ roleId: Type.Integer() }) });
export const MessageResponse = SuccessSchema({ message: Type.String() });
export const ListRolesResponse = SuccessSchema({
  response: Type.Array(RoleRecordSchema),
  currentPage: Type.Integer(),
  totalPages: Type.Integer(),
  totalRecords: Type.Integer(),
});
