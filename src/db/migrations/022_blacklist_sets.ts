import type { Migration } from '../migrate.js';

/**
 * The per-DID blacklist becomes one row per contact holding its DID set
 * (comma-separated digits). Replacing a set is then a single upsert: two
 * concurrent Blacklist requests for one contact leave exactly one of the two
 * sets (never a union, never a duplicate-key failure), on every node.
 */
export const migration: Migration = {
  id: '022_blacklist_sets',
  up(d) {
    const pg = d === 'postgres';
    return `
CREATE TABLE contact_blacklist_sets (
  account_id BIGINT NOT NULL,
  contact ${pg ? 'TEXT COLLATE "C"' : 'TEXT'} NOT NULL,
  dids TEXT NOT NULL,
  PRIMARY KEY (account_id, contact)
)${pg ? '' : ' WITHOUT ROWID'};
INSERT INTO contact_blacklist_sets (account_id, contact, dids)
  SELECT account_id, contact, ${pg ? "string_agg(did, ',' ORDER BY did)" : "group_concat(did, ',')"} FROM contact_blacklist GROUP BY account_id, contact;
DROP TABLE contact_blacklist;
`;
  },
};
