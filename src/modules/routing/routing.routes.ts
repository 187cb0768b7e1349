import { defineOperation } from '../../http/operation.js';
import { toId } from '../../http/ids.js';
import { DecideBody, DecideResponse } from './routing.schemas.js';
import type { RoutingService } from './routing.service.js';

export function routingOperations({ routing }: { routing: RoutingService }) {
  return [
    defineOperation({
      module: 'route',
      name: 'decide',
      writes: true,
      audit: { exempt: 'PRODUCT.md §12: route/decide is the switch asking, not an administrative change' },
      summary: 'Ask before routing a call: blocked?, DNC status, sticky agent available now',
      description:
        'The switch asks this for every inbound call. `blocked` with `reason` "contact" (the contact record is blacklisted: every DID) ' +
        'or "did" (the per-DID blacklist of this DID); `dnc` the current DNC status; `stickyAgentId` the most specific active sticky ' +
        'assignment (cli_group, then cli, then all) whose agent is logged in and not on break, omitted when none or when blocked; ' +
        '`contact` the normalised caller when it has a directory entry.',
      principals: ['client', 'switch'],
      errorModule: 'agent',
      body: DecideBody,
      response: DecideResponse,
      errors: [1000, 1005, 1006, 1014, 1015, 1047, 1516],
      errorNotes: { 1516: "the dialled number is not one of the account's DIDs" },
      examples: {
        request: { caller: '+91 98111 00042', did: '18005550100', groupId: 55 },
        response: { data: { blocked: false, dnc: 0, stickyAgentId: 12, contact: '919811100042' } },
      },
      async handler({ principal, body }) {
        const data = await routing.decide(principal.accountId, {
          caller: body.caller,
          did: body.did,
          groupId: body.groupId === undefined ? undefined : toId(body.groupId),
        });
        return { data };
      },
    }),
  ];
}
