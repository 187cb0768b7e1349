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
      summary: 'Create an agent (logs in with its e-mail)',
      permission: 'agent.manage',
      errorModule: 'agent',
      body: CreateAgentBody,
      response: AgentIdResponse,
      errors: WRITE_ERRORS,
      async handler({ principal, body }) {
        return { message: 'Agent created', data: { agentId: await agents.create(principal, body) } };
      },
    }),
    defineOperation({
      module: 'Agent',
      name: 'update',
      summary: 'Change an agent (merge: fields not sent keep their values; group as in updateAgentGroupMapping)',
      permission: 'agent.manage',
      errorModule: 'agent',
      body: UpdateAgentBody,
      response: MessageResponse,
      errors: [...WRITE_ERRORS, 1501, 1506, 1509].sort(),
      async handler({ principal, body }) {
        await agents.update(principal, body);
        return { message: 'Agent updated' };
      },
    }),
    defineOperation({
      module: 'Agent',
      name: 'delete',
      summary: 'Delete an agent (soft: isDeleted and preDeleted set; its children move up to its parent)',
      permission: 'agent.manage',
      errorModule: 'agent',
      body: DeleteAgentBody,
      response: MessageResponse,
      errors: [1000, 1014, 1015, 1047, 1501, 1509],
      async handler({ principal, body }) {
        await agents.remove(principal, toId(body.agentId));
        return { message: 'Agent deleted' };
      },
    }),
    defineOperation({
      module: 'Agent',
      name: 'list',
      summary: 'The agents the caller may see, as an array of agent records',
      permission: 'agent.view',
      errorModule: 'agent',
      body: ListAgentsBody,
      response: ListAgentsResponse,
      errors: [1000, 1006, 1014, 1015, 1047],
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
      summary: 'Switch CAD on for agents in bulk (per-agent failures in data.errors)',
      permission: 'agent.manage',
      errorModule: 'agent',
      body: CadBody,
      response: SetCadResponse,
      errors: [1000, 1014, 1015, 1047, 1501],
      async handler({ principal, body }) {
        return { message: 'CAD set', data: await cad.setCad(principal, body.agentIds) };
      },
    }),
    defineOperation({
      module: 'Agent',
      name: 'unsetCad',
      summary: 'Switch CAD off for agents in bulk (unknown or already unset agents in data.errors)',
      permission: 'agent.manage',
      errorModule: 'agent',
      body: CadBody,
      response: UnsetCadResponse,
      errors: [1000, 1014, 1015, 1047, 1501],
      async handler({ principal, body }) {
        return { message: 'CAD unset', data: await cad.unsetCad(principal, body.agentIds) };
      },
    }),
    defineOperation({
      module: 'Agent',
      name: 'updateAgentGroupMapping',
      summary: "Set an agent's receive_call flag for the listed groups; unlisted groups are unchanged",
      permission: 'group.manage',
      errorModule: 'agent',
      body: GroupMappingBody,
      response: MessageResponse,
      errors: [1000, 1014, 1015, 1047, 1501, 1505, 1509],
      async handler({ principal, body }) {
        await agents.mapGroups(principal, toId(body.agentId), body.group);
        return { message: 'Agent group mapping updated' };
      },
    }),
  ];
}
