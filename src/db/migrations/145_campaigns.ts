import { type Migration } from '../migrate.js';

/**
 * Outbound campaigns (PRODUCT.md §13, modules/campaign):
 * - `campaigns`: the campaign, its settings (JSON) and state, and the
 *   dialer's lease (`lease_owner` holds it until `lease_until`, ms): one node
 *   dials a campaign at a time, and another takes it over when the lease runs
 *   out.
 * - `campaign_contacts`: per campaign and contact, the attempt state the
 *   dialer keeps (attempts, next attempt time, done, the call it is in).
 * - `campaign_calls`: every dial, written before its `call.originate`
 *   command leaves (so a restart never dials an attempt twice), then its
 *   events' outcome and its disposition.
 * Times are Unix seconds.
 */
export const migration: Migration = {
  id: '145_campaigns',
  up() {
    return `
CREATE TABLE campaigns (
  account_id BIGINT NOT NULL,
  campaign_id BIGINT NOT NULL,
  name TEXT NOT NULL,
  state TEXT NOT NULL,
  mode TEXT NOT NULL,
  group_id BIGINT NOT NULL,
  did TEXT NOT NULL,
  cl_ids TEXT NOT NULL,
  settings TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  started_at BIGINT,
  fresh_cursor TEXT NOT NULL DEFAULT '{}',
  lease_owner TEXT,
  lease_until BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, campaign_id)
);
CREATE INDEX campaigns_running ON campaigns (state, lease_until);
CREATE TABLE campaign_contacts (
  account_id BIGINT NOT NULL,
  campaign_id BIGINT NOT NULL,
  contact_id BIGINT NOT NULL,
  cl_id BIGINT NOT NULL,
  position BIGINT NOT NULL,
  number TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at BIGINT NOT NULL DEFAULT 0,
  callback INTEGER NOT NULL DEFAULT 0,
  done INTEGER NOT NULL DEFAULT 0,
  in_call TEXT,
  awaiting TEXT,
  last_call TEXT,
  last_outcome TEXT,
  reserved_by BIGINT,
  reserved_until BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, campaign_id, contact_id)
);
CREATE INDEX campaign_contacts_due ON campaign_contacts (account_id, campaign_id, done, next_at);
CREATE INDEX campaign_contacts_call ON campaign_contacts (account_id, in_call);
CREATE TABLE campaign_calls (
  account_id BIGINT NOT NULL,
  call_id TEXT NOT NULL,
  campaign_id BIGINT NOT NULL,
  contact_id BIGINT NOT NULL,
  number TEXT NOT NULL,
  agent_id BIGINT,
  attempt INTEGER NOT NULL,
  retry_of TEXT,
  predictive INTEGER NOT NULL DEFAULT 0,
  dialled_at BIGINT NOT NULL,
  connected_at BIGINT,
  answered_by TEXT,
  agent_answered_at BIGINT,
  ended_at BIGINT,
  outcome TEXT,
  disposition TEXT,
  disposed_at BIGINT,
  notes TEXT,
  obd_pending INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, call_id)
);
CREATE INDEX campaign_calls_open ON campaign_calls (account_id, number, ended_at);
CREATE INDEX campaign_calls_window ON campaign_calls (account_id, campaign_id, dialled_at);`;
  },
};
