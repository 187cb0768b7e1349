import { fail } from '../../errors/catalogue.js';
import { defineOperation } from '../../http/operation.js';
import { toId } from '../../http/ids.js';
import { CountBody, CountResponse, ListBody, ListResponse, TakeoverBody, TakeoverResponse } from './queue.schemas.js';
import type { QueueService } from './queue.service.js';

export function queueOperations({ queue }: { queue: QueueService }) {
  return [
    defineOperation({
      module: 'queue',
      name: 'count',
      summary: 'Live queue statistics over the trailing window, per agent, campaign, state, group, user and DID',
      permission: 'queue.view',
      errorModule: 'queue',
      body: CountBody,
      response: CountResponse,
      errors: [1000, 1014, 1015, 1047],
      async handler({ principal, body }) {
        return queue.count(principal, body.window);
      },
    }),
    defineOperation({
      module: 'queue',
      name: 'list',
      summary: 'Live calls (filtered, paged) with queue duration, summary and per-agent modules',
      permission: 'queue.view',
      errorModule: 'queue',
      body: ListBody,
      response: ListResponse,
      errors: [1000, 1014, 1015, 1047, 1501, 1502],
      async handler({ principal, body }) {
        return queue.list(principal, body);
      },
    }),
    defineOperation({
      module: 'queue',
      name: 'callTakeover',
      summary: 'A supervisor takes over a live call; the switch is told through the stream (call.takeover)',
      permission: 'queue.takeover',
      errorModule: 'queue',
      body: TakeoverBody,
      response: TakeoverResponse,
      errors: [1000, 1014, 1015, 1043, 1047],
      async handler({ principal, body }) {
        let callernumber: string | undefined;
        if (body.callernumber !== undefined && body.callernumber !== '') {
          callernumber = String(body.callernumber).replace(/\D/g, '');
          if (callernumber.length === 0) throw fail(1000, 'callernumber');
        }
        const data = await queue.takeover(principal, {
          callId: body.callId,
          callernumber,
          agentid: body.agentid === undefined ? undefined : toId(body.agentid),
        });
        return { message: 'call taken over', data };
      },
    }),
  ];
}
