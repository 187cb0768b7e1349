import { defineOperation } from '../../http/operation.js';
import { IngestBody, IngestResponse } from './events.schemas.js';
import type { EventsService } from './events.service.js';

export function eventsOperations({ events }: { events: EventsService }) {
  return [
    defineOperation({
      module: 'events',
      name: 'ingest',
      writes: true,
      audit: { exempt: 'PRODUCT.md §12: the switch reporting telephony events is not an administrative change' },
      summary: 'Report telephony events (switch or client); live state, queue statistics and call history follow from them',
      description:
        'Events are applied in order in one transaction, durable before the answer. A repeated eventId is counted in duplicates; ' +
        'an event that contradicts the state is listed in errors (0-based index, code, message) and changes nothing.',
      principals: ['client', 'switch'],
      body: IngestBody,
      response: IngestResponse,
      errors: [1000, 1014, 1015, 1047],
      examples: {
        request: {
          events: [
            { eventId: 'ev-1001', type: 'agent.login', ts: 1768035600, agentId: 12, loginType: 'Web' },
            { eventId: 'ev-1003', type: 'call.queued', ts: 1768035605, callId: 'c-981', groupId: 55, did: '18005550100', caller: '+91 98111 00042' },
            { eventId: 'ev-1004', type: 'call.ringing', ts: 1768035606, callId: 'c-981', agentId: 12 },
            { eventId: 'ev-1004', type: 'call.ringing', ts: 1768035606, callId: 'c-981', agentId: 12 },
            { eventId: 'ev-1005', type: 'call.answered', ts: 1768035612.5, callId: 'c-981', agentId: 999 },
          ],
        },
        response: { data: { accepted: 3, duplicates: 1, errors: [{ index: 4, code: 1509, message: 'Invalid agent id: agent 999' }] } },
      },
      async handler({ principal, body }) {
        return { data: await events.ingest(principal.accountId, body.events) };
      },
    }),
  ];
}
