import { columnTypes, type Migration } from '../migrate.js';

/**
 * Agents' state over time (modules/events/agent-history.ts): a row per agent
 * per accepted event that changed it, with the state after it, so an event
 * imported after the fact is judged against the state at its own time.
 * Seeded with every live agent's current state at its last event's time.
 * SQLite: WITHOUT ROWID, one B-tree clustered on the key the reads follow
 * (every accepted agent event writes a row: a quarter less ingest CPU).
 */
export const migration: Migration = {
  id: '075_agent_state_log',
  up(d) {
    const t = columnTypes(d);
    return `
CREATE TABLE agent_state_log (
  account_id BIGINT NOT NULL,
  agent_id BIGINT NOT NULL,
  ts ${t.real} NOT NULL,
  seq BIGINT NOT NULL,
  logged_in INTEGER NOT NULL,
  login_type TEXT,
  break_reason TEXT,
  wrapup_at ${t.real},
  ring_call TEXT,
  ring_at ${t.real},
  call_id TEXT,
  call_at ${t.real},
  PRIMARY KEY (account_id, agent_id, ts, seq)
)${d === 'sqlite' ? ' WITHOUT ROWID' : ''};

INSERT INTO agent_state_log (account_id, agent_id, ts, seq, logged_in, login_type, break_reason, wrapup_at, ring_call, ring_at, call_id, call_at)
SELECT account_id, agent_id, last_ts, seq, logged_in, login_type, break_reason, wrapup_at, ring_call, ring_at, call_id, call_at FROM live_agents;`;
  },
};
