import { columnTypes, type Migration } from '../migrate.js';

/**
 * `campaign_calls.wrap_secs`: the agents' wrap-up seconds that belong to a
 * campaign call (the spans the events module closes, campaign/wrap-sink.ts),
 * so report/campaign's `aht` is talk + hold + wrap-up as §11 counts it.
 */
export const migration: Migration = {
  id: '147_campaign_wrap',
  up(d) {
    return `ALTER TABLE campaign_calls ADD COLUMN wrap_secs ${columnTypes(d).real} NOT NULL DEFAULT 0;`;
  },
};
