import type { Migration } from '../migrate.js';

/**
 * The dialer's per-account reads of every tick (modules/campaign/dialer.ts):
 * the calls in progress of all the account's campaigns, the calls whose
 * outcome the Directory contact has not shown yet, and the agents preview
 * reservations hold. Each is a few rows out of the account's whole call
 * history or attempt table; without these partial indexes each tick walked
 * all of it.
 */
export const migration: Migration = {
  id: '148_campaign_calls_in_progress',
  up() {
    return `
CREATE INDEX campaign_calls_in_progress ON campaign_calls (account_id, campaign_id) WHERE ended_at IS NULL;
CREATE INDEX campaign_calls_obd_pending ON campaign_calls (account_id, campaign_id) WHERE obd_pending = 1;
CREATE INDEX campaign_contacts_reserved ON campaign_contacts (account_id, reserved_by) WHERE reserved_by IS NOT NULL;`;
  },
};
