import { defineOperation } from '../../http/operation.js';
import { IngestBody, IngestResponse } from './events.schemas.js';
import type { EventsService } from './events.service.js';

export function eventsOperations({ events }: { events: EventsService }) {
  return [
    defineOperation({
      module: 'events',
      name: 'ingest',
      summary: 'Report telephony events (switch or client); live state, queue statistics and call history follow from them',
      description:
        'Events are applied in order in one transaction, durable before the answer. A repeated eventId is counted in duplicates; ' +
        'an event that contradicts the state is listed in errors (0-based index, code, message) and changes nothing.',
      principals: ['client', 'switch'],
      body: IngestBody,
      response: IngestResponse,
      errors: [1000, 1014, 1015, 1047],
      async handler({ principal, body }) {
        return { data: await events.ingest(principal.accountId, body.events) };
      },
    }),
  ];
}
