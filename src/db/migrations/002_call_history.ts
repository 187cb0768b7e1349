import { columnTypes, type Migration } from '../migrate.js';

/** Finished calls and their offers (hits): see modules/calls/call-record.ts. */
export const migration: Migration = {
  id: '002_call_history',
  up(d) {
    const t = columnTypes(d);
    return `
CREATE TABLE calls (
  account_id BIGINT NOT NULL,
  call_id TEXT NOT NULL,
  queued_at ${t.real} NOT NULL,
  ended_at ${t.real} NOT NULL,
  group_id BIGINT,
  did TEXT,
  campaign_id TEXT,
  direction TEXT NOT NULL DEFAULT 'inbound',
  caller TEXT,
  retry_of TEXT,
  answered_by BIGINT,
  answered_at ${t.real},
  talk_secs ${t.real} NOT NULL DEFAULT 0,
  hold_secs ${t.real} NOT NULL DEFAULT 0,
  wait_secs ${t.real} NOT NULL DEFAULT 0,
  outcome TEXT NOT NULL,
  PRIMARY KEY (account_id, call_id)
);
CREATE INDEX calls_queued ON calls (account_id, queued_at);
CREATE INDEX calls_retry_of ON calls (account_id, retry_of);

CREATE TABLE call_hits (
  account_id BIGINT NOT NULL,
  call_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  agent_id BIGINT NOT NULL,
  ring_at ${t.real} NOT NULL,
  ring_secs ${t.real} NOT NULL DEFAULT 0,
  answered INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, call_id, seq)
);
CREATE INDEX call_hits_agent ON call_hits (account_id, agent_id, ring_at);
`;
  },
};
