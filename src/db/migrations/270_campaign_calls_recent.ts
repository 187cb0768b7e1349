import type { Migration } from '../migrate.js';

/**
 * The predictive campaigns' recent dials (modules/campaign/dialer.repository.ts
 * `recentDialsOf`: each campaign's last 200 dials with a result, newest
 * first, ties by `call_id`) read in index order and stopped at the limit:
 * `campaign_calls_window` with `call_id` after `dialled_at`. Without it, a
 * read sorted on `call_id` sorted each campaign's whole history on
 * PostgreSQL before planner statistics (an incremental sort after them), and
 * through a temporary B-tree on SQLite. The abandon window's read
 * (`dialled_at >=` per campaign) uses the wider index as it did the old one.
 */
export const migration: Migration = {
  id: '270_campaign_calls_recent',
  up() {
    return `
DROP INDEX campaign_calls_window;
CREATE INDEX campaign_calls_recent ON campaign_calls (account_id, campaign_id, dialled_at, call_id);`;
  },
};
