import { Answer } from '../../http/answer.js';
import { fail } from '../../errors/catalogue.js';
import { defineOperation } from '../../http/operation.js';
import { toId } from '../../http/ids.js';
import { CountBody, CountResponse, ListBody, ListResponse, TakeoverBody, TakeoverResponse } from './queue.schemas.js';
import type { QueueService } from './queue.service.js';

/** One waiting call, as queue/count and queue/list show it (their examples). */
const EXAMPLE_WAITING_CALL = {
  callId: 'c-982',
  state: 'queued',
  caller: '4930123456',
  did: '18005550100',
  groupId: 55,
  campaignId: '',
  direction: 'inbound',
  agentId: null,
  ringingAgentId: null,
  onHold: false,
  queuedAt: 1768035620,
  answeredAt: null,
  wait: 40,
};

export function queueOperations({ queue }: { queue: QueueService }) {
  return [
    defineOperation({
      module: 'queue',
      name: 'count',
      writes: false,
      summary: 'Live queue statistics over the trailing window, per agent, campaign, state, group, user and DID',
      permission: 'queue.view',
      errorModule: 'queue',
      body: CountBody,
      response: CountResponse,
      errors: [1000, 1014, 1015, 1047],
      examples: {
        request: { window: 300 },
        response: {
          lstSync: '6',
          window: 300,
          chart: {
            time: [1768035360, 1768035390, 1768035420, 1768035450, 1768035480, 1768035510, 1768035540, 1768035570, 1768035600, 1768035630],
            total: [0, 0, 0, 0, 0, 0, 0, 0, 2, 0],
            drop: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            con: [0, 0, 0, 0, 0, 0, 0, 0, 1, 0],
          },
          data: {
            calls: [
              {
                callId: 'c-981',
                state: 'connected',
                caller: '919811100042',
                did: '18005550100',
                groupId: 55,
                campaignId: '',
                direction: 'inbound',
                agentId: 12,
                ringingAgentId: null,
                onHold: false,
                queuedAt: 1768035605,
                answeredAt: 1768035612,
                wait: 7,
              },
              EXAMPLE_WAITING_CALL,
            ],
            count: 2,
            avC: 7,
            avR: 6,
            stA: 1,
            st1: 40,
            qDura: [
              { time: 1768035570, total: 0, drop: 0, con: 0 },
              { time: 1768035600, total: 2, drop: 0, con: 1 },
              { time: 1768035630, total: 0, drop: 0, con: 0 },
            ],
            ag: [{ key: 12, add: 1, drop: 0, con: 1, pen: 0, process: 0, ass: 1 }],
            campId: [],
            st: [
              { key: 'inbound_connected', add: 1, drop: 0, con: 1, pen: 0, process: 0, ass: 1 },
              { key: 'inbound_queued', add: 1, drop: 0, con: 0, pen: 1, process: 0, ass: 0 },
            ],
            grp: [{ key: 55, add: 2, drop: 0, con: 1, pen: 1, process: 0, ass: 1 }],
            user: [{ key: 2, add: 2, drop: 0, con: 1, pen: 1, process: 0, ass: 1 }],
            did: [{ key: '18005550100', add: 2, drop: 0, con: 1, pen: 1, process: 0, ass: 1 }],
          },
        },
      },
      async handler({ principal, body }) {
        return Answer.sharedView(await queue.count(principal, body.window));
      },
    }),
    defineOperation({
      module: 'queue',
      name: 'list',
      writes: false,
      summary: 'Live calls (filtered, paged) with queue duration, summary and per-agent modules',
      permission: 'queue.view',
      errorModule: 'queue',
      body: ListBody,
      response: ListResponse,
      errors: [1000, 1014, 1015, 1047, 1501, 1502],
      errorNotes: { 1501: 'a similar request is running; retry later' },
      examples: {
        request: { window: 300, filter: [{ key: 'groupId', op: 'eq', val: 55 }], page: 0, size: 20, Modules: ['summary', 'calls', 'agent'] },
        response: {
          lstSync: '6',
          window: 300,
          chart: { time: [1768035570, 1768035600, 1768035630], total: [0, 2, 0], drop: [0, 0, 0], con: [0, 1, 0] },
          data: {
            onB: 0,
            onC: 1,
            web: 1,
            total: 1,
            page: 0,
            size: 20,
            calls: [EXAMPLE_WAITING_CALL],
            summary: { type: 'all', add: 2, drop: 0, con: 1, pen: 1, process: 0, ass: 1, count: 2, avC: 7, avR: 6, stA: 1, st1: 40 },
            agent: [
              { agentId: 12, state: 'oncall', loginType: 'Web', callId: 'c-981', ringingCallId: '', add: 1, drop: 0, con: 1 },
              { agentId: 13, state: 'available', loginType: 'SIP', callId: '', ringingCallId: '', add: 0, drop: 0, con: 0 },
            ],
          },
        },
      },
      async handler({ principal, body }) {
        return queue.list(principal, body);
      },
    }),
    defineOperation({
      module: 'queue',
      name: 'callTakeover',
      writes: true,
      audit: {
        // A takeover changes no stored state of the agent: the record names the call taken over.
        target: 'agent',
        id: ({ body, principal }) => (body.agentid === undefined ? principal.agentId : toId(body.agentid)),
        changes: ({ body }) => ({ callTakeover: [null, body.callId] }),
      },
      summary: 'A supervisor takes over a live call; the switch is told through the stream (call.takeover)',
      permission: 'queue.takeover',
      errorModule: 'queue',
      body: TakeoverBody,
      response: TakeoverResponse,
      errors: [1000, 1014, 1015, 1043, 1047],
      errorNotes: {
        1000: 'a field is missing or of the wrong type, or no live call matches callId / callernumber',
        1043: 'the agent taking over is not logged in',
      },
      examples: { request: { callId: 'c-981', agentid: 13 }, response: { message: 'call taken over', data: { callId: 'c-981', from: 12, to: 13 } } },
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
