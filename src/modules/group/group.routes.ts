import { defineOperation } from '../../http/operation.js';
import { toId } from '../../http/ids.js';
import { CreateGroupBody, DeleteGroupBody, GroupIdResponse, ListGroupsBody, ListGroupsResponse, MessageResponse, UpdateGroupBody } from './group.schemas.js';
import type { GroupService } from './group.service.js';

export function groupOperations({ groups }: { groups: GroupService }) {
  return [
    defineOperation({
      module: 'group',
      name: 'create',
      writes: true,
      audit: { target: 'group', created: ({ result }) => (result as { data: { groupId: number } }).data.groupId },
      summary: 'Create a group (explicit groupId allowed, e.g. 55)',
      permission: 'group.manage',
      errorModule: 'agent',
      body: CreateGroupBody,
      response: GroupIdResponse,
      errors: [1000, 1014, 1015, 1047, 1505],
      errorNotes: { 1505: 'a group with that id already exists in the account' },
      examples: { request: { groupId: 55, name: 'Support' }, response: { message: 'Group created', data: { groupId: 55 } } },
      async handler({ principal, body }) {
        const groupId = await groups.create(principal.accountId, {
          groupId: body.groupId === undefined ? undefined : toId(body.groupId),
          name: body.name.trim(),
        });
        return { message: 'Group created', data: { groupId } };
      },
    }),
    defineOperation({
      module: 'group',
      name: 'update',
      writes: true,
      audit: { target: 'group', id: ({ body }) => toId(body.groupId) },
      summary: 'Rename a group',
      permission: 'group.manage',
      errorModule: 'agent',
      body: UpdateGroupBody,
      response: MessageResponse,
      errors: [1000, 1006, 1014, 1015, 1047],
      examples: { request: { groupId: 56, name: 'Sales EMEA' }, response: { message: 'Group updated' } },
      async handler({ principal, body }) {
        await groups.rename(principal.accountId, toId(body.groupId), body.name.trim());
        return { message: 'Group updated' };
      },
    }),
    defineOperation({
      module: 'group',
      name: 'delete',
      writes: true,
      audit: { target: 'group', id: ({ body }) => toId(body.groupId) },
      summary: 'Delete a group and every agent mapping to it',
      permission: 'group.manage',
      errorModule: 'agent',
      body: DeleteGroupBody,
      response: MessageResponse,
      errors: [1000, 1006, 1014, 1015, 1047],
      examples: { request: { groupId: 56 }, response: { message: 'Group deleted' } },
      async handler({ principal, body }) {
        await groups.remove(principal.accountId, toId(body.groupId));
        return { message: 'Group deleted' };
      },
    }),
    defineOperation({
      module: 'group',
      name: 'list',
      writes: false,
      summary: "The account's groups with their agent counts",
      permission: 'agent.view',
      body: ListGroupsBody,
      response: ListGroupsResponse,
      errors: [1014, 1015, 1047],
      examples: {
        request: {},
        response: {
          data: [
            { groupId: 55, name: 'Support', create_date: 1768035600, agentCount: 2 },
            { groupId: 56, name: 'Sales EMEA', create_date: 1768035600, agentCount: 0 },
          ],
        },
      },
      async handler({ principal }) {
        return { data: await groups.list(principal.accountId) };
      },
    }),
  ];
}
