import { bulkWrite, type BulkColumn } from '../../db/bulk.js';
import { dialectOf } from '../../db/dialect.js';
import { inList } from '../../db/in-list.js';
import type { TenantQueries } from '../../db/tenant.js';

export interface ListRow {
  cl_id: number;
  name: string;
  created_at: number;
  contacts: number;
}

/** A stored list contact, as the table holds it (`fields` is JSON text). */
export interface ListContactRow {
  contact_id: number;
  cl_id: number;
  position: number;
  number: string;
  name: string;
  timezone: string;
  fields: string;
  schedule_at: number | null;
  reschedule_at: number | null;
  deleted: number;
  created_at: number;
  updated_at: number;
  /** The account's change sequence number of the last new `reschedule_at` (0: none since migration 273). */
  callback_seq: number;
}

const CONTACT_COLUMNS: readonly BulkColumn[] = [
  { name: 'contact_id', pg: 'bigint' },
  { name: 'cl_id', pg: 'bigint' },
  { name: 'position', pg: 'bigint' },
  { name: 'number', pg: 'text' },
  { name: 'name', pg: 'text' },
  { name: 'timezone', pg: 'text' },
  { name: 'fields', pg: 'text' },
  { name: 'schedule_at', pg: 'bigint' },
  { name: 'reschedule_at', pg: 'bigint' },
  { name: 'deleted', pg: 'integer' },
  { name: 'created_at', pg: 'bigint' },
  { name: 'updated_at', pg: 'bigint' },
  { name: 'callback_seq', pg: 'bigint' },
];

const SELECT_CONTACT = `SELECT contact_id, cl_id, position, number, name, timezone, fields, schedule_at, reschedule_at, deleted, created_at, updated_at, callback_seq
  FROM list_contacts`;

/** Numbers (BIGINT read back as text on some paths) as JS numbers. */
function contactRow(r: ListContactRow): ListContactRow {
  return {
    ...r,
    contact_id: Number(r.contact_id),
    cl_id: Number(r.cl_id),
    position: Number(r.position),
    schedule_at: r.schedule_at === null ? null : Number(r.schedule_at),
    reschedule_at: r.reschedule_at === null ? null : Number(r.reschedule_at),
    deleted: Number(r.deleted),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
    callback_seq: Number(r.callback_seq),
  };
}

/** Contact lists and their contacts: SQL only, one tenant, inside the caller's transaction. */
export class ContactListRepository {
  constructor(private readonly t: TenantQueries) {}

  /**
   * Serialises the account's list writers until the transaction ends: a
   * no-op upsert of the account's id counters row, which holds its row lock
   * until commit (PostgreSQL; SQLite writes one transaction at a time
   * anyway). A number looked up as absent is then still absent when it is
   * inserted.
   */
  async lockAccount(): Promise<void> {
    await this.t.run(
      `INSERT INTO contact_list_ids (account_id, next_cl_id, next_contact_id) VALUES ($1, 1, 1)
       ON CONFLICT (account_id) DO UPDATE SET next_cl_id = contact_list_ids.next_cl_id`,
    );
  }

  /**
   * `contacts`: the account's next contact id, which moves in the adding transaction whenever a contact is added to any
   * list; `callbacks`: the last callback change number taken (0: none).
   */
  async marks(): Promise<{ contacts: number; callbacks: number }> {
    const row = await this.t.getValues('SELECT next_contact_id, next_callback_seq FROM contact_list_ids WHERE account_id = $1');
    return { contacts: Number(row?.[0] ?? 0), callbacks: Number(row?.[1] ?? 1) - 1 };
  }

  /**
   * Takes `n` callback change numbers (list_contacts.callback_seq); answers
   * the first. The counter row's lock is held until commit, so changes
   * commit in the order of their numbers: a reader that saw one has seen
   * every smaller one.
   */
  async takeCallbackSeqs(n: number): Promise<number> {
    const row = await this.t.getValues(
      `INSERT INTO contact_list_ids (account_id, next_cl_id, next_contact_id, next_callback_seq) VALUES ($1, 1, 1, 1 + $2)
       ON CONFLICT (account_id) DO UPDATE SET next_callback_seq = contact_list_ids.next_callback_seq + $2
       RETURNING next_callback_seq`,
      [n],
    );
    return Number(row![0]) - n;
  }

  /** Fresh planner statistics of `list_contacts` (PostgreSQL; see DialectOps.refreshPlannerStatistics): call outside a transaction. */
  async refreshStatistics(): Promise<void> {
    await dialectOf(this.t).refreshPlannerStatistics(this.t, 'list_contacts');
  }

  /** Takes `lists` list ids and `contacts` contact ids; answers the first of each block. */
  async takeIds(lists: number, contacts: number): Promise<{ clId: number; contactId: number }> {
    const row = await this.t.get<{ next_cl_id: number; next_contact_id: number }>(
      `INSERT INTO contact_list_ids (account_id, next_cl_id, next_contact_id) VALUES ($1, 1 + $2, 1 + $3)
       ON CONFLICT (account_id) DO UPDATE SET next_cl_id = contact_list_ids.next_cl_id + $2, next_contact_id = contact_list_ids.next_contact_id + $3
       RETURNING next_cl_id, next_contact_id`,
      [lists, contacts],
    );
    return { clId: Number(row!.next_cl_id) - lists, contactId: Number(row!.next_contact_id) - contacts };
  }

  async insertList(clId: number, name: string, now: number): Promise<void> {
    await this.t.run('INSERT INTO contact_lists (account_id, cl_id, name, created_at) VALUES ($1, $2, $3, $4)', [clId, name, now]);
  }

  async listExists(clId: number): Promise<boolean> {
    return (await this.t.getValues('SELECT 1 FROM contact_lists WHERE account_id = $1 AND cl_id = $2', [clId])) !== undefined;
  }

  /** The subset of `clIds` that are lists of the account. */
  async existingLists(clIds: readonly number[]): Promise<Set<number>> {
    if (clIds.length === 0) return new Set();
    const list = inList(this.t, 'cl_id', 2, clIds);
    const rows = await this.t.allValues(`SELECT cl_id FROM contact_lists WHERE account_id = $1 AND ${list.sql}`, [list.param]);
    return new Set(rows.map((r) => Number(r[0])));
  }

  /** Every list with its count of contacts that are not soft-deleted. */
  async lists(): Promise<ListRow[]> {
    const rows = await this.t.all<ListRow>(
      `SELECT l.cl_id, l.name, l.created_at,
              (SELECT COUNT(*) FROM list_contacts c WHERE c.account_id = l.account_id AND c.cl_id = l.cl_id AND c.deleted = 0) AS contacts
         FROM contact_lists l WHERE l.account_id = $1 ORDER BY l.cl_id`,
    );
    return rows.map((r) => ({ cl_id: Number(r.cl_id), name: r.name, created_at: Number(r.created_at), contacts: Number(r.contacts) }));
  }

  /** Removes the list and all its contacts; false when there was no such list. */
  async removeList(clId: number): Promise<boolean> {
    await this.t.run('DELETE FROM list_contacts WHERE account_id = $1 AND cl_id = $2', [clId]);
    const res = await this.t.run('DELETE FROM contact_lists WHERE account_id = $1 AND cl_id = $2', [clId]);
    return res.changes === 1;
  }

  async contactByNumber(clId: number, number: string): Promise<ListContactRow | undefined> {
    const row = await this.t.get<ListContactRow>(`${SELECT_CONTACT} WHERE account_id = $1 AND cl_id = $2 AND number = $3`, [clId, number]);
    return row && contactRow(row);
  }

  async contactById(contactId: number): Promise<ListContactRow | undefined> {
    const row = await this.t.get<ListContactRow>(`${SELECT_CONTACT} WHERE account_id = $1 AND contact_id = $2`, [contactId]);
    return row && contactRow(row);
  }

  /** The contacts among `ids` (soft-deleted ones too): one statement. */
  async contactsByIds(ids: readonly number[]): Promise<ListContactRow[]> {
    if (ids.length === 0) return [];
    const list = inList(this.t, 'contact_id', 2, ids);
    const rows = await this.t.all<ListContactRow>(`${SELECT_CONTACT} WHERE account_id = $1 AND ${list.sql}`, [list.param]);
    return rows.map(contactRow);
  }

  /** The stored contacts of the list among `numbers`, by number. */
  async contactsByNumber(clId: number, numbers: readonly string[]): Promise<Map<string, ListContactRow>> {
    if (numbers.length === 0) return new Map();
    const list = inList(this.t, 'number', 3, numbers);
    const rows = await this.t.all<ListContactRow>(`${SELECT_CONTACT} WHERE account_id = $1 AND cl_id = $2 AND ${list.sql}`, [clId, list.param]);
    return new Map(rows.map((r) => [r.number, contactRow(r)]));
  }

  /** Inserts new contacts and rewrites existing ones (by contact id), set at a time. */
  async writeContacts(rows: readonly ListContactRow[]): Promise<void> {
    await bulkWrite(this.t, 'list_contacts', CONTACT_COLUMNS, ['contact_id'], rows as unknown as Record<string, string | number | null>[], 'update');
  }

  /** A page of the list's contacts (soft-deleted ones too) in list order, after the contact id `after`. */
  async page(clId: number, after: number, limit: number): Promise<ListContactRow[]> {
    const rows = await this.t.all<ListContactRow>(`${SELECT_CONTACT} WHERE account_id = $1 AND cl_id = $2 AND position > $3 ORDER BY position LIMIT $4`, [
      clId,
      after,
      limit,
    ]);
    return rows.map(contactRow);
  }

  /** Removes a contact for good; false when the list holds no such contact. */
  async removeContact(clId: number, contactId: number): Promise<boolean> {
    const res = await this.t.run('DELETE FROM list_contacts WHERE account_id = $1 AND cl_id = $2 AND contact_id = $3', [clId, contactId]);
    return res.changes === 1;
  }

  /**
   * Live (not soft-deleted) contacts of the lists in list order, after
   * `afterPosition`; with `now`, only those whose `schedule_at` has come.
   */
  async dialOrder(clIds: readonly number[], afterPosition: number, limit: number, now: number | null): Promise<ListContactRow[]> {
    if (clIds.length === 0) return [];
    const list = inList(this.t, 'cl_id', 2, clIds);
    const due = now === null ? '' : ' AND (schedule_at IS NULL OR schedule_at <= $5)';
    const rows = await this.t.all<ListContactRow>(
      `${SELECT_CONTACT} WHERE account_id = $1 AND ${list.sql} AND deleted = 0 AND position > $3${due}
       ORDER BY position LIMIT $4`,
      now === null ? [list.param, afterPosition, limit] : [list.param, afterPosition, limit, now],
    );
    return rows.map(contactRow);
  }

  /** Contacts of the lists (soft-deleted ones too) whose callback changed after the change `after`, in change order. */
  async callbackChanges(clIds: readonly number[], after: number, limit: number): Promise<ListContactRow[]> {
    if (clIds.length === 0) return [];
    const list = inList(this.t, 'cl_id', 2, clIds);
    const rows = await this.t.all<ListContactRow>(
      `${SELECT_CONTACT} WHERE account_id = $1 AND callback_seq > $3 AND ${list.sql} ORDER BY callback_seq LIMIT $4`,
      [list.param, after, limit],
    );
    return rows.map(contactRow);
  }

  /** Counts of the lists' contacts: live ones, soft-deleted ones. */
  async counts(clIds: readonly number[]): Promise<{ live: number; deleted: number }> {
    if (clIds.length === 0) return { live: 0, deleted: 0 };
    const list = inList(this.t, 'cl_id', 2, clIds);
    const row = await this.t.getValues(
      `SELECT COALESCE(SUM(CASE WHEN deleted = 0 THEN 1 ELSE 0 END), 0), COALESCE(SUM(deleted), 0) FROM list_contacts WHERE account_id = $1 AND ${list.sql}`,
      [list.param],
    );
    return { live: Number(row?.[0] ?? 0), deleted: Number(row?.[1] ?? 0) };
  }
}
