import type { Migration } from '../migrate.js';

/**
 * Contact lists of outbound campaigns (PRODUCT.md §13, src/modules/contactlist).
 *
 * - `contact_lists`: one row per list (`cl_id` numbered per account).
 * - `list_contacts`: one row per contact of a list. `contact_id` is unique in
 *   the account (the vendor's `contact_id` / `delId`), `position` is list
 *   order (the dialer dials in it), `number` the normalised digits, unique in
 *   a list (adding it again updates it). `deleted` = 1 is a soft delete: kept,
 *   never dialled again. `schedule_at`: not dialled before; `reschedule_at`:
 *   a callback, dialled first once due.
 * - `contact_list_ids`: the next list and contact ids of each account, taken
 *   by one `UPDATE … RETURNING` (the row lock serialises concurrent adds on
 *   PostgreSQL; a bulk import takes a whole block at once).
 *
 * The two partial indexes are the dialer's reads: list order of the live
 * contacts of given lists, and due callbacks in due order.
 */
export const migration: Migration = {
  id: '140_contact_lists',
  up(d) {
    const number = d === 'postgres' ? 'TEXT COLLATE "C" NOT NULL' : 'TEXT NOT NULL';
    return `
CREATE TABLE contact_lists (
  account_id BIGINT NOT NULL,
  cl_id BIGINT NOT NULL,
  name TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (account_id, cl_id)
);

CREATE TABLE list_contacts (
  account_id BIGINT NOT NULL,
  contact_id BIGINT NOT NULL,
  cl_id BIGINT NOT NULL,
  position BIGINT NOT NULL,
  number ${number},
  name TEXT NOT NULL DEFAULT '',
  timezone TEXT NOT NULL DEFAULT '',
  fields TEXT NOT NULL DEFAULT '{}',
  schedule_at BIGINT,
  reschedule_at BIGINT,
  deleted INTEGER NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (account_id, contact_id)
);
CREATE UNIQUE INDEX list_contacts_number ON list_contacts (account_id, cl_id, number);
CREATE INDEX list_contacts_dial_order ON list_contacts (account_id, cl_id, position) WHERE deleted = 0;
CREATE INDEX list_contacts_callbacks ON list_contacts (account_id, cl_id, reschedule_at, position) WHERE deleted = 0 AND reschedule_at IS NOT NULL;

CREATE TABLE contact_list_ids (
  account_id BIGINT NOT NULL PRIMARY KEY,
  next_cl_id BIGINT NOT NULL,
  next_contact_id BIGINT NOT NULL
);`;
  },
};
