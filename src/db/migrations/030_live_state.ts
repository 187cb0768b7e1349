import { columnTypes, type Migration } from '../migrate.js';

/**
 * Live state derived from telephony events (modules/events): per-account
 * event sequence, accepted event ids (idempotency), one row per agent that
 * ever had an event, one row per live call, and a bounded change log the
 * stream resumes from. Compact rows: ingest rewrites them at high rate.
 */
export const migration: Migration = {
  id: '030_live_state',
  up(d) {
    const t = columnTypes(d);
    return `
CREATE TABLE event_seq (
  account_id BIGINT PRIMARY KEY,
  seq BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE event_ids (
  account_id BIGINT NOT NULL,
  event_id TEXT NOT NULL,
  seq BIGINT NOT NULL,
  PRIMARY KEY (account_id, event_id)
);

CREATE TABLE live_agents (
  account_id BIGINT NOT NULL,
  agent_id BIGINT NOT NULL,
  logged_in INTEGER NOT NULL DEFAULT 0,
  login_type TEXT,
  login_at ${t.real},
  avail_since ${t.real},
  break_reason TEXT,
  break_at ${t.real},
  wrapup_at ${t.real},
  ring_call TEXT,
  ring_at ${t.real},
  call_id TEXT,
  call_at ${t.real},
  sip_status TEXT NOT NULL DEFAULT 'offline',
  day_key TEXT NOT NULL DEFAULT '',
  avail_secs ${t.real} NOT NULL DEFAULT 0,
  talk_secs ${t.real} NOT NULL DEFAULT 0,
  calls INTEGER NOT NULL DEFAULT 0,
  last_ts ${t.real} NOT NULL DEFAULT 0,
  seq BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, agent_id)
);

CREATE TABLE live_calls (
  account_id BIGINT NOT NULL,
  call_id TEXT NOT NULL,
  state TEXT NOT NULL,
  queued_at ${t.real} NOT NULL,
  group_id BIGINT,
  did TEXT,
  caller TEXT,
  campaign_id TEXT,
  direction TEXT NOT NULL DEFAULT 'inbound',
  retry_of TEXT,
  ring_agent BIGINT,
  ring_at ${t.real},
  agent_id BIGINT,
  answered_at ${t.real},
  agent_since ${t.real},
  on_hold INTEGER NOT NULL DEFAULT 0,
  hold_at ${t.real},
  hold_secs ${t.real} NOT NULL DEFAULT 0,
  hits TEXT NOT NULL DEFAULT '[]',
  last_ts ${t.real} NOT NULL DEFAULT 0,
  seq BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, call_id)
);
CREATE INDEX live_calls_caller ON live_calls (account_id, caller);

CREATE TABLE live_changes (
  account_id BIGINT NOT NULL,
  seq BIGINT NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (account_id, seq)
);
`;
  },
};
