import { columnTypes, type Migration } from '../migrate.js';

/** Accounts, credentials, administration records and the lock table. */
export const migration: Migration = {
  id: '001_foundation',
  up(d) {
    const t = columnTypes(d);
    return `
CREATE TABLE accounts (
  id ${t.autoId},
  username TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  name TEXT NOT NULL DEFAULT '',
  is_operator INTEGER NOT NULL DEFAULT 0,
  timezone TEXT NOT NULL DEFAULT 'UTC',
  default_group_id BIGINT DEFAULT 55,
  ghost_threshold_secs INTEGER NOT NULL DEFAULT 3,
  custom_fields TEXT NOT NULL DEFAULT '[]',
  created_at BIGINT NOT NULL
);

CREATE TABLE sessions (
  token_hash TEXT PRIMARY KEY,
  account_id BIGINT NOT NULL,
  agent_id BIGINT,
  expires_at BIGINT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX sessions_expiry ON sessions (expires_at);

CREATE TABLE api_tokens (
  id ${t.autoId},
  token_hash TEXT NOT NULL UNIQUE,
  account_id BIGINT NOT NULL,
  agent_id BIGINT,
  user_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  name TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  revoked_at BIGINT
);

CREATE TABLE groups (
  account_id BIGINT NOT NULL,
  group_id BIGINT NOT NULL,
  name TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  PRIMARY KEY (account_id, group_id)
);

CREATE TABLE roles (
  id ${t.autoId},
  account_id BIGINT NOT NULL,
  name TEXT NOT NULL,
  permissions TEXT NOT NULL DEFAULT '[]',
  can_see INTEGER NOT NULL DEFAULT 1,
  status INTEGER NOT NULL DEFAULT 1,
  is_deleted INTEGER NOT NULL DEFAULT 0,
  create_date BIGINT NOT NULL,
  create_by TEXT NOT NULL DEFAULT '',
  create_by_type TEXT NOT NULL DEFAULT ''
);
CREATE INDEX roles_account ON roles (account_id, is_deleted, status);

CREATE TABLE agents (
  id ${t.autoId},
  account_id BIGINT NOT NULL,
  name TEXT NOT NULL,
  email TEXT NOT NULL,
  password_hash TEXT NOT NULL DEFAULT '',
  phone TEXT NOT NULL DEFAULT '',
  address TEXT NOT NULL DEFAULT '',
  call_pass TEXT NOT NULL DEFAULT '',
  dest_type TEXT NOT NULL DEFAULT '',
  dest_value TEXT NOT NULL DEFAULT '',
  role_id BIGINT,
  parent_id BIGINT,
  parent_path TEXT NOT NULL DEFAULT ',START,',
  allow_did TEXT NOT NULL DEFAULT '',
  favorite TEXT NOT NULL DEFAULT '',
  working TEXT NOT NULL DEFAULT '[]',
  status INTEGER NOT NULL DEFAULT 1,
  cad INTEGER NOT NULL DEFAULT 0,
  is_deleted INTEGER NOT NULL DEFAULT 0,
  pre_deleted INTEGER NOT NULL DEFAULT 0,
  create_date BIGINT NOT NULL,
  create_by TEXT NOT NULL DEFAULT '',
  create_by_type TEXT NOT NULL DEFAULT ''
);
CREATE INDEX agents_account ON agents (account_id, is_deleted);
CREATE UNIQUE INDEX agents_email ON agents (email) WHERE is_deleted = 0;

CREATE TABLE agent_groups (
  account_id BIGINT NOT NULL,
  agent_id BIGINT NOT NULL,
  group_id BIGINT NOT NULL,
  receive_call TEXT NOT NULL DEFAULT 'Y',
  PRIMARY KEY (agent_id, group_id)
);
CREATE INDEX agent_groups_group ON agent_groups (account_id, group_id);

CREATE TABLE dids (
  did TEXT PRIMARY KEY,
  account_id BIGINT NOT NULL,
  name TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL
);
CREATE INDEX dids_account ON dids (account_id);

CREATE TABLE locks (
  lock_key TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);
`;
  },
};
