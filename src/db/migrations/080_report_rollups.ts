import { columnTypes, type Migration } from '../migrate.js';

// Fixed here (a migration never changes); src/modules/report/thresholds.ts names the same values.
const SL = [5, 10, 15, 20, 25, 30, 40, 45, 60, 90, 120, 180, 240, 300];
const SA = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 60];

/**
 * The manager reports' roll-ups (src/modules/report, docs/reports.md), kept
 * at ingest per UTC quarter hour (every zone's offset is a whole number of
 * quarter hours, so local 15-minute, hour, day, week and month intervals are
 * unions of them):
 * - report_queue: per group, the calls queued in the quarter hour;
 * - report_agent / report_agent_breaks: per agent, the time that passed in
 *   the quarter hour by state (split exactly at its edges) and the hits rung in it.
 * live_agents learns the call an agent answered last and the call its
 * wrap-up belongs to (wrap-up time goes to that call's queue figures).
 */
export const migration: Migration = {
  id: '080_report_rollups',
  up(d) {
    const t = columnTypes(d);
    const sl = SL.map((s) => `  sl_${s} INTEGER NOT NULL DEFAULT 0,`).join('\n');
    const sa = SA.map((s) => `  sa_${s} INTEGER NOT NULL DEFAULT 0,\n  saw_${s} ${t.real} NOT NULL DEFAULT 0,`).join('\n');
    return `
ALTER TABLE live_agents ADD COLUMN last_call TEXT;
ALTER TABLE live_agents ADD COLUMN wrap_call TEXT;

CREATE TABLE report_queue (
  account_id BIGINT NOT NULL,
  bucket BIGINT NOT NULL,
  group_id BIGINT NOT NULL,
  offered INTEGER NOT NULL DEFAULT 0,
  answered INTEGER NOT NULL DEFAULT 0,
  abandoned INTEGER NOT NULL DEFAULT 0,
  ans_wait_sum ${t.real} NOT NULL DEFAULT 0,
  ab_wait_sum ${t.real} NOT NULL DEFAULT 0,
  max_wait ${t.real},
  talk_sum ${t.real} NOT NULL DEFAULT 0,
  hold_sum ${t.real} NOT NULL DEFAULT 0,
  wrap_sum ${t.real} NOT NULL DEFAULT 0,
  taken_over INTEGER NOT NULL DEFAULT 0,
  retries INTEGER NOT NULL DEFAULT 0,
${sl}
${sa}
  PRIMARY KEY (account_id, bucket, group_id)
);

CREATE TABLE report_agent (
  account_id BIGINT NOT NULL,
  bucket BIGINT NOT NULL,
  agent_id BIGINT NOT NULL,
  login ${t.real} NOT NULL DEFAULT 0,
  available ${t.real} NOT NULL DEFAULT 0,
  ringing ${t.real} NOT NULL DEFAULT 0,
  talk ${t.real} NOT NULL DEFAULT 0,
  hold ${t.real} NOT NULL DEFAULT 0,
  wrap ${t.real} NOT NULL DEFAULT 0,
  brk ${t.real} NOT NULL DEFAULT 0,
  offered INTEGER NOT NULL DEFAULT 0,
  answered INTEGER NOT NULL DEFAULT 0,
  missed INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, bucket, agent_id)
);

CREATE TABLE report_agent_breaks (
  account_id BIGINT NOT NULL,
  bucket BIGINT NOT NULL,
  agent_id BIGINT NOT NULL,
  reason TEXT NOT NULL,
  secs ${t.real} NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, bucket, agent_id, reason)
);

-- calls_caller (account_id, caller, queued_at) comes from 060_call_reports.
CREATE INDEX calls_outcome ON calls (account_id, outcome, queued_at);`;
  },
};
