import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';
import { EVENT_TYPES } from './event-types.js';

/**
 * Each event is checked by the state machine, not by the schema: a malformed
 * event is one entry in `errors`, it does not fail the batch.
 */
export const IngestBody = Type.Object({
  events: Type.Array(Type.Unknown({ description: `An event: {eventId, type (${EVENT_TYPES.join(', ')}), ts, …}; see docs/events.md` }), {
    maxItems: 1000,
    description: 'At most 1000 events, applied in order',
  }),
});

export const IngestResponse = SuccessSchema({
  data: Type.Object(
    {
      accepted: Type.Integer(),
      duplicates: Type.Integer(),
      errors: Type.Array(Type.Object({ index: Type.Integer(), code: Type.Integer(), message: Type.String() }, { additionalProperties: false })),
    },
    { additionalProperties: false },
  ),
});
