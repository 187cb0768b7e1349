import { defineOperation } from '../../http/operation.js';
import {
  AgentIdResponse,
  CadBody,
  CreateAgentBody,
  DeleteAgentBody,
  GroupMappingBody,
  ListAgentsBody,
  ListAgentsResponse,
  MessageResponse,
  SetCadResponse,
  UnsetCadResponse,
  UpdateAgentBody,
} from './agent.schemas.js';
import { toId } from '../../http/ids.js';
import type { AgentService } from './agent.service.js';
import type { AgentListService } from './agent-list.service.js';
import type { AgentCadService } from './agent-cad.service.js';

const WRITE_ERRORS = [1000, 1014, 1015, 1047, 1503, 1504, 1505, 1508, 1510, 1511, 1512, 1513, 1514, 1515, 1516, 1519, 1528];

/** Agent administration (PRODUCT.md §5), Agent/list, CAD and group mapping. Agent/live lives in modules/live. */
/** The well-formed ids of a bulk request (the others are reported in its data.errors and change nothing). */
function auditedIds(ids: ReadonlyArray<unknown>): number[] {
  return [...new Set(ids.filter((v) => /^[0-9]{1,15}$/.test(String(v))).map(Number))];
}

export function agentOperations({
  agents,
  agentLists: lists,
  agentCad: cad,
}: {
  agents: AgentService;
  agentLists: AgentListService;
  agentCad: AgentCadService;
}) {
  return [
    defineOperation({
      module: 'Agent',
      name: 'create',
      writes: true,
      audit: { target: 'agent', created: ({ result }) => (result as { data: { agentId: number } }).data.agentId },
      summary: 'Create an agent (logs in with its e-mail)',
      permission: 'agent.manage',
      errorModule: 'agent',
      body: CreateAgentBody,
      response: AgentIdResponse,
      errors: WRITE_ERRORS,
      examples: {
        request: {
          name: 'Priya Sharma',
          email: 'priya@example.com',
          password: 'priya-password',
          phone: '+91 98765 43210',
          call_pass: '12345678',
          dest_type: 'MOBILE',
          dest_value: '919876543210',
          role: 7,
          group: { '55': { receive_call: 'Y' } },
          working: [{ wDays: ['MON', 'TUE', 'WED', 'THU', 'FRI'], from: 540, to: 1080 }],
        },
        response: { message: 'Agent created', data: { agentId: 12 } },
      },
      async handler({ principal, body }) {
        return { message: 'Agent created', data: { agentId: await agents.create(principal, body) } };
      },
    }),
    defineOperation({
      module: 'Agent',
      name: 'update',
      writes: true,
      around: ({ body }, run) => agents.whileLocked([toId(body.agentId)], run),
      audit: { target: 'agent', id: ({ body }) => toId(body.agentId) },
      summary: 'Change an agent (merge: fields not sent keep their values; group as in updateAgentGroupMapping)',
      permission: 'agent.manage',
      errorModule: 'agent',
      body: UpdateAgentBody,
      response: MessageResponse,
      errors: [...WRITE_ERRORS, 1501, 1506, 1509].sort(),
      examples: { request: { agentId: 12, address: '4 Park Street, Kolkata', status: 1 }, response: { message: 'Agent updated' } },
      async handler({ principal, body }) {
        await agents.update(principal, body);
        return { message: 'Agent updated' };
      },
    }),
    defineOperation({
      module: 'Agent',
      name: 'delete',
      writes: true,
      around: ({ body }, run) => agents.whileLocked([toId(body.agentId)], run),
      audit: { target: 'agent', id: ({ body }) => toId(body.agentId) },
      summary: 'Delete an agent (soft: isDeleted and preDeleted set; its children move up to its parent)',
      permission: 'agent.manage',
      errorModule: 'agent',
      body: DeleteAgentBody,
      response: MessageResponse,
      errors: [1000, 1014, 1015, 1047, 1501, 1509],
      examples: { request: { agentId: 14 }, response: { message: 'Agent deleted' } },
      async handler({ principal, body }) {
        await agents.remove(principal, toId(body.agentId));
        return { message: 'Agent deleted' };
      },
    }),
    defineOperation({
      module: 'Agent',
      name: 'list',
      writes: false,
      summary: 'The agents the caller may see, as an array of agent records',
      permission: 'agent.view',
      errorModule: 'agent',
      body: ListAgentsBody,
      response: ListAgentsResponse,
      errors: [1000, 1006, 1014, 1015, 1047],
      examples: {
        request: { agentId: 12 },
        response: {
          response: [
            {
              name: 'Priya Sharma',
              favorite: '',
              email: 'priya@example.com',
              phone: '919876543210',
              address: '4 Park Street, Kolkata',
              dest_type: 'MOBILE',
              dest_value: '919876543210',
              call_pass: '12345678',
              password: '',
              role: '7',
              roleName: 'Supervisor',
              parent: ',START,',
              create_date: 1768035600,
              create_by: '2',
              create_by_type: 'client',
              user_id: '2',
              unique_id: 12,
              allowDid: '',
              status: 1,
              isDeleted: 0,
              preDeleted: 0,
              cad: 0,
              group: [55],
              groupNames: [{ '55': 'Support' }],
              groupMapping: { '55': { receive_call: 'Y' } },
              working: [{ wDays: ['MON', 'TUE', 'WED', 'THU', 'FRI'], from: 540, to: 1080, agentId: 12 }],
            },
          ],
        },
      },
      async handler({ principal, body }) {
        const response = await lists.list(principal, {
          agentId: body.agentId === undefined || body.agentId === '' ? undefined : toId(body.agentId),
          name: body.name,
          groupId: body.groupid === undefined || body.groupid === '' ? undefined : toId(body.groupid),
          quick: body.quick,
        });
        return { response };
      },
    }),
    defineOperation({
      module: 'Agent',
      name: 'setCad',
      writes: true,
      around: ({ body }, run) => agents.whileLocked(auditedIds(body.agentIds), run),
      audit: { target: 'agent', id: ({ body }) => auditedIds(body.agentIds) },
      summary: 'Switch CAD on for agents in bulk (per-agent failures in data.errors)',
      permission: 'agent.manage',
      errorModule: 'agent',
      body: CadBody,
      response: SetCadResponse,
      errors: [1000, 1014, 1015, 1047, 1501],
      examples: {
        request: { agentIds: [12, 999] },
        response: {
          message: 'CAD set',
          data: { updatedAgents: [{ agentId: '12', status: 'success' }], errors: [{ agentId: '999', message: 'agent not found' }] },
        },
      },
      async handler({ principal, body }) {
        return { message: 'CAD set', data: await cad.setCad(principal, body.agentIds) };
      },
    }),
    defineOperation({
      module: 'Agent',
      name: 'unsetCad',
      writes: true,
      around: ({ body }, run) => agents.whileLocked(auditedIds(body.agentIds), run),
      audit: { target: 'agent', id: ({ body }) => auditedIds(body.agentIds) },
      summary: 'Switch CAD off for agents in bulk (unknown or already unset agents in data.errors)',
      permission: 'agent.manage',
      errorModule: 'agent',
      body: CadBody,
      response: UnsetCadResponse,
      errors: [1000, 1014, 1015, 1047, 1501],
      examples: { request: { agentIds: [12] }, response: { message: 'CAD unset', data: { unsetCadAgents: ['12'], errors: [] } } },
      async handler({ principal, body }) {
        return { message: 'CAD unset', data: await cad.unsetCad(principal, body.agentIds) };
      },
    }),
    defineOperation({
      module: 'Agent',
      name: 'updateAgentGroupMapping',
      writes: true,
      around: ({ body }, run) => agents.whileLocked([toId(body.agentId)], run),
      audit: { target: 'agent', id: ({ body }) => toId(body.agentId) },
      summary: "Set an agent's receive_call flag for the listed groups; unlisted groups are unchanged",
      permission: 'group.manage',
      errorModule: 'agent',
      body: GroupMappingBody,
      response: MessageResponse,
      errors: [1000, 1014, 1015, 1047, 1501, 1505, 1509],
      examples: {
        request: { agentId: 13, group: { '55': { receive_call: 'Y' }, '56': { receive_call: 'N' } } },
        response: { message: 'Agent group mapping updated' },
      },
      async handler({ principal, body }) {
        await agents.mapGroups(principal, toId(body.agentId), body.group);
        return { message: 'Agent group mapping updated' };
      },
    }),
  ];
}
