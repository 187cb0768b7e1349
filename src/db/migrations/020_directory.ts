import type { Migration } from '../migrate.js';

/**
 * The contact directory: contacts, DNC, per-DID blacklist and sticky agents.
 *
 * Every table is keyed by (account_id, contact) first, so a lookup is one
 * primary-key probe and a prefix search is an index range scan, however many
 * contacts an account holds. On PostgreSQL the contact column uses the "C"
 * collation: ranges over digit strings then follow byte order (as on SQLite),
 * whatever the database's default collation. DNC, blacklist and sticky rows
 * do not reference the contacts table: a number can be blocked before it is
 * ever saved (PRODUCT.md §5).
 */
export const migration: Migration = {
  id: '020_directory',
  up(d) {
    const contact = d === 'postgres' ? 'TEXT COLLATE "C" NOT NULL' : 'TEXT NOT NULL';
    return `
CREATE TABLE contacts (
  account_id BIGINT NOT NULL,
  contact ${contact},
  name TEXT,
  email TEXT,
  dob TEXT,
  address TEXT,
  company TEXT,
  designation TEXT,
  custom TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  last_call TEXT,
  total_calls BIGINT,
  source BIGINT,
  vip INTEGER,
  blacklist INTEGER,
  obd TEXT,
  ibd TEXT,
  pc TEXT,
  ctc TEXT,
  PRIMARY KEY (account_id, contact)
);

CREATE TABLE contact_dnc (
  account_id BIGINT NOT NULL,
  contact ${contact},
  dnc BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (account_id, contact)
);

CREATE TABLE contact_blacklist (
  account_id BIGINT NOT NULL,
  contact ${contact},
  did TEXT NOT NULL,
  PRIMARY KEY (account_id, contact, did)
);

CREATE TABLE sticky_agents (
  account_id BIGINT NOT NULL,
  contact ${contact},
  scope TEXT NOT NULL,
  cli TEXT NOT NULL DEFAULT '',
  group_id BIGINT NOT NULL DEFAULT 0,
  agent_id BIGINT NOT NULL,
  expiry BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (account_id, contact, scope, cli, group_id)
);
`;
  },
};
