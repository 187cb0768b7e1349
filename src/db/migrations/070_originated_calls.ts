import { columnTypes, type Migration } from '../migrate.js';

/**
 * Click-to-call (PRODUCT.md §10): every call placed by call/originate or the
 * vendor's /api/v3/clickToCall/para, under the callId the switch reports its
 * events with. A call report says `cType: "CTC"` for a call that has a row
 * here (join on account_id, call_id).
 */
export const migration: Migration = {
  id: '070_originated_calls',
  up(d) {
    const t = columnTypes(d);
    return `
CREATE TABLE originated_calls (
  account_id BIGINT NOT NULL,
  call_id TEXT NOT NULL,
  agent_id BIGINT NOT NULL,
  agent_number TEXT NOT NULL DEFAULT '',
  customer TEXT NOT NULL,
  did TEXT,
  campaign_id TEXT,
  call_first TEXT NOT NULL DEFAULT 'agent',
  agent_cli TEXT,
  created_at ${t.real} NOT NULL,
  PRIMARY KEY (account_id, call_id)
);`;
  },
};
