import { columnTypes, type Migration } from '../migrate.js';

/**
 * Agents' recent states (modules/events/agent-states.ts): the ingest writes
 * each agent state change here, in time order, and moves the account's rows
 * into `agent_state_log` (clustered by agent, for the reads of past events)
 * once every 10,000 events. Why: a batch of complete calls changed the state
 * of ~200 agents, and a row per change into the agent-clustered table
 * dirtied a leaf page per agent — 251 of the 422 WAL pages a 500-event batch
 * wrote on SQLite (bench/ingest-statements.ts, issue 34). Keyed by time
 * first, the batch's rows land in one or two pages; the move writes each
 * agent's page once per 10,000 events rather than once per batch.
 */
export const migration: Migration = {
  id: '260_agent_state_recent',
  up(d) {
    const t = columnTypes(d);
    return `
CREATE TABLE agent_state_recent (
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
  PRIMARY KEY (account_id, ts, agent_id, seq)
)${d === 'sqlite' ? ' WITHOUT ROWID' : ''};`;
  },
};
