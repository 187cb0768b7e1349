import type { Migration } from '../migrate.js';

/**
 * The contacts whose call waits for its disposition (`awaiting`), per
 * campaign: the few rows the dialer's overdue-disposition read of every
 * tick starts from (modules/campaign/dialer.repository.ts `undisposedOf`),
 * each then one primary-key probe of its call. Without it that read started
 * from the account's finished calls on PostgreSQL before planner statistics
 * (no call is ever disposed unanswered, so `disposition IS NULL` keeps
 * nearly all of them) and scanned the contacts for each: 3.5 s a tick with
 * 5,000 finished calls (bench/campaign-overdue.ts).
 */
export const migration: Migration = {
  id: '271_campaign_contacts_awaiting',
  up() {
    return `CREATE INDEX campaign_contacts_awaiting ON campaign_contacts (account_id, campaign_id) WHERE awaiting IS NOT NULL;`;
  },
};
