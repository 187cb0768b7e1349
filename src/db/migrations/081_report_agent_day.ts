import { columnTypes, type Migration } from '../migrate.js';

/**
 * Agent time per local day (src/modules/report/rollup): the same sums as
 * report_agent, per day of the zone the account had when the time was
 * written (`tz`, part of the key), so report/agent by day, week, month or
 * total reads one row per agent and day instead of 96. A report in another
 * zone (the account's zone changed) reads the quarter hours instead.
 */
export const migration: Migration = {
  id: '081_report_agent_day',
  up(d) {
    const t = columnTypes(d);
    return `
CREATE TABLE report_agent_day (
  account_id BIGINT NOT NULL,
  day_start BIGINT NOT NULL,
  agent_id BIGINT NOT NULL,
  tz TEXT NOT NULL,
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
  PRIMARY KEY (account_id, day_start, agent_id, tz)
);

CREATE TABLE report_agent_breaks_day (
  account_id BIGINT NOT NULL,
  day_start BIGINT NOT NULL,
  agent_id BIGINT NOT NULL,
  reason TEXT NOT NULL,
  tz TEXT NOT NULL,
  secs ${t.real} NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, day_start, agent_id, reason, tz)
);`;
  },
};
