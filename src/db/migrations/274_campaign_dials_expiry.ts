import type { Migration } from '../migrate.js';

/**
 * The retention job's way to a campaign's old dials (docs/privacy.md): past
 * the account's `callDays` a dial keeps its counts and loses what names a
 * person — its number becomes '' and its disposition notes NULL
 * (modules/retention/retention.repository.ts `expireCampaignDials`). This
 * index holds only the dials that still have a number, oldest first, so a
 * batch finds the next ones without passing over those already expired.
 */
export const migration: Migration = {
  id: '274_campaign_dials_expiry',
  up() {
    return `CREATE INDEX campaign_calls_numbered ON campaign_calls (account_id, dialled_at) WHERE number <> '';`;
  },
};
