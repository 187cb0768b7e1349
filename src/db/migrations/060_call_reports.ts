import { columnTypes, type Migration } from '../migrate.js';

/**
 * What a call report (PRODUCT.md §9) needs beyond the analysis' call history:
 * the `reason` of `call.ended` as given, each connected leg (answer start and
 * end, hold) in `call_legs`, the recordings the switch reports in
 * `call_recordings`, and the open legs of live calls (`live_calls.legs`,
 * JSON like `hits`), and the one key that signs recording tokens, shared by
 * every node (`recording_keys`, modules/callreport). Written by modules/calls (legs, reasons, recordings) and
 * modules/events (live legs). The caller index serves CallReport/list by number.
 */
export const migration: Migration = {
  id: '060_call_reports',
  up(d) {
    const t = columnTypes(d);
    return `
ALTER TABLE calls ADD COLUMN end_reason TEXT;
ALTER TABLE live_calls ADD COLUMN legs TEXT NOT NULL DEFAULT '[]';

CREATE TABLE call_legs (
  account_id BIGINT NOT NULL,
  call_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  agent_id BIGINT NOT NULL,
  hit_seq INTEGER,
  answer_at ${t.real} NOT NULL,
  answer_end ${t.real} NOT NULL,
  hold_secs ${t.real} NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, call_id, seq)
);

CREATE TABLE call_recordings (
  account_id BIGINT NOT NULL,
  call_id TEXT NOT NULL,
  seq BIGINT NOT NULL,
  agent_id BIGINT,
  path TEXT NOT NULL,
  at ${t.real} NOT NULL,
  PRIMARY KEY (account_id, call_id, seq)
);
CREATE INDEX call_recordings_path ON call_recordings (path);
CREATE INDEX calls_caller ON calls (account_id, caller, queued_at);

CREATE TABLE recording_keys (
  id INTEGER PRIMARY KEY,
  secret TEXT NOT NULL
);
`;
  },
};
