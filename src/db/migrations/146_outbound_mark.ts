import { type Migration } from '../migrate.js';

/**
 * `event_seq.outbound_mark`: changes of campaign calls that move no live
 * state and take no sequence number (`call.dialing`, `call.connected`, the end
 * of a dial the queue never saw, the dialer's own abandon) bump it, so views
 * cached under the sequence (queue/count's `campId[]`) see them in the next
 * request on every node.
 */
export const migration: Migration = {
  id: '146_outbound_mark',
  up() {
    return 'ALTER TABLE event_seq ADD COLUMN outbound_mark BIGINT NOT NULL DEFAULT 0;';
  },
};
