import type { Clock } from '../../clock.js';
import { tenant } from '../../db/tenant.js';
import type { Database, Queryable } from '../../db/types.js';
import { fail } from '../../errors/catalogue.js';
import { parseRecord, parseTime, rejectionOf, type ContactRecord, type FieldValue } from './contact-record.js';
import { ContactListRepository, type ListContactRow } from './contactlist.repository.js';

/** The most records one `contactList/import` takes (PRODUCT.md §13). */
export const MAX_IMPORT_RECORDS = 10_000;
/** Batches of at least this many records refresh the planner's statistics first (PostgreSQL). */
const STATISTICS_BATCH = 1_000;

/**
 * Which campaign that is not stopped or completed uses the list, by name
 * (or any text that names it), or null when none does. The campaign module
 * answers it; the composition root wires it (`ContactListService.listInUse`).
 */
export type ListInUse = (accountId: number, clId: number) => Promise<string | null>;

export interface ContactListView {
  clId: number;
  name: string;
  /** Contacts that are not soft-deleted. */
  contacts: number;
  createdAt: number;
}

/** A list contact on the wire (`contactList/contacts`): the names `AddContactApi/addContact` gives its parts. */
export interface ContactView {
  contact_id: number;
  number: string;
  name: string;
  timezone: string;
  fields: Record<string, FieldValue>;
  campaignSchedule: number | null;
  campaignReschedule: number | null;
  deleted: boolean;
}

/** A list contact as the dialer reads it (src/modules/contactlist/README.md). */
export interface DialContact {
  contactId: number;
  clId: number;
  /** List order: the dialer dials in ascending position. */
  position: number;
  number: string;
  name: string;
  /** IANA zone, or '' (the campaign's zone applies). */
  timezone: string;
  fields: Record<string, FieldValue>;
  /** Unix seconds: not dialled before; null when unset. */
  scheduleAt: number | null;
  /** Unix seconds: a callback, dialled first once due; null when none. */
  rescheduleAt: number | null;
  /** The account's number of the change that set `rescheduleAt` (0: none since migration 273; listMarks, callbackChanges). */
  callbackSeq: number;
  /** Soft-deleted: kept, never dialled again. */
  deleted: boolean;
}

export interface AddContactInput {
  clId: number;
  /** 0 add (an existing number is updated), 1 update, 2 soft-delete. */
  action: number;
  record: unknown;
  campaignSchedule?: unknown;
  campaignReschedule?: unknown;
}

export interface Rejection {
  index: number;
  code: number;
  message: string;
}

export interface ImportResult {
  added: number;
  updated: number;
  rejected: Rejection[];
}

/** A record ready to write, with its schedule times (undefined: left as stored; null: cleared). */
interface Write {
  record: ContactRecord;
  scheduleAt?: number | null;
  rescheduleAt?: number | null;
}

function dialContact(r: ListContactRow): DialContact {
  return {
    contactId: r.contact_id,
    clId: r.cl_id,
    position: r.position,
    number: r.number,
    name: r.name,
    timezone: r.timezone,
    fields: JSON.parse(r.fields) as Record<string, FieldValue>,
    scheduleAt: r.schedule_at,
    rescheduleAt: r.reschedule_at,
    callbackSeq: r.callback_seq,
    deleted: r.deleted === 1,
  };
}

export interface ContactListServiceDeps {
  db: Database;
  clock: Clock;
  /** Which running campaign uses a list (given by the composition root; it reaches the campaigns when called). */
  listInUse?: ListInUse;
}

/**
 * Contact lists of outbound campaigns (PRODUCT.md §13): lists, their
 * contacts on the vendor's `AddContactApi` wire, bulk and CSV imports, and
 * the reads the dialer makes (README.md of this folder).
 */
export class ContactListService {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly listInUse: ListInUse;

  constructor(deps: ContactListServiceDeps) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.listInUse = deps.listInUse ?? (async () => null);
  }

  private repo(accountId: number, q: Queryable = this.db) {
    return new ContactListRepository(tenant(q, accountId));
  }

  private nowSec(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  async create(accountId: number, name: string): Promise<number> {
    const now = this.nowSec();
    return this.db.transaction(async (tx) => {
      const repo = this.repo(accountId, tx);
      await repo.lockAccount();
      const { clId } = await repo.takeIds(1, 0);
      await repo.insertList(clId, name, now);
      return clId;
    });
  }

  async list(accountId: number): Promise<ContactListView[]> {
    const rows = await this.repo(accountId).lists();
    return rows.map((r) => ({ clId: r.cl_id, name: r.name, contacts: r.contacts, createdAt: r.created_at }));
  }

  /** 1012 when there is no such list; 1000 naming the campaign while one that is not stopped or completed uses it. */
  async delete(accountId: number, clId: number): Promise<void> {
    if (!(await this.repo(accountId).listExists(clId))) throw fail(1012, `contact list ${clId}`);
    const campaign = await this.listInUse(accountId, clId);
    if (campaign !== null) throw fail(1000, `contact list ${clId} is used by campaign ${campaign}`);
    await this.db.transaction(async (tx) => {
      if (!(await this.repo(accountId, tx).removeList(clId))) throw fail(1012, `contact list ${clId}`);
    });
  }

  /**
   * `AddContactApi/addContact`: action 0 adds (a number already in the list
   * is updated; a soft-deleted one stays deleted), 1 updates (1012 when the
   * number is not in the list), 2 soft-deletes (1012 likewise). Answers the
   * contact's id.
   */
  async addContact(accountId: number, input: AddContactInput): Promise<number> {
    const record = parseRecord(input.record);
    const scheduleAt = parseTime(input.campaignSchedule, 'campaignSchedule');
    const rescheduleAt = parseTime(input.campaignReschedule, 'campaignReschedule');
    const now = this.nowSec();
    return this.db.transaction(async (tx) => {
      const repo = this.repo(accountId, tx);
      await repo.lockAccount();
      if (!(await repo.listExists(input.clId))) throw fail(1012, `contact list ${input.clId}`);
      const stored = await repo.contactByNumber(input.clId, record.number);
      if (input.action !== 0 && !stored) throw fail(1012, `number ${record.number} is not in contact list ${input.clId}`);
      if (input.action === 2) {
        await repo.writeContacts([{ ...stored!, deleted: 1, updated_at: now }]);
        return stored!.contact_id;
      }
      const [row] = await this.upsert(repo, input.clId, [{ record, scheduleAt, rescheduleAt }], now);
      return row!.contact_id;
    });
  }

  /** `AddContactApi/deleteContact`: removes the contact for good; 1012 when the list holds no contact `delId`. */
  async deleteContact(accountId: number, clId: number, delId: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      const repo = this.repo(accountId, tx);
      if (!(await repo.listExists(clId))) throw fail(1012, `contact list ${clId}`);
      if (!(await repo.removeContact(clId, delId))) throw fail(1012, `contact ${delId} is not in contact list ${clId}`);
    });
  }

  /**
   * `contactList/contacts`: a page of the list in list order (soft-deleted
   * contacts too, marked), after the contact id `after`; `nextCursor` is the
   * last one's id when there may be more, else null. 1012 for no such list.
   */
  async contacts(accountId: number, clId: number, after: number, limit: number): Promise<{ contacts: ContactView[]; nextCursor: number | null }> {
    const repo = this.repo(accountId);
    if (!(await repo.listExists(clId))) throw fail(1012, `contact list ${clId}`);
    const rows = await repo.page(clId, after, limit);
    const contacts = rows.map((r) => ({
      contact_id: r.contact_id,
      number: r.number,
      name: r.name,
      timezone: r.timezone,
      fields: JSON.parse(r.fields) as Record<string, FieldValue>,
      campaignSchedule: r.schedule_at,
      campaignReschedule: r.reschedule_at,
      deleted: r.deleted === 1,
    }));
    return { contacts, nextCursor: rows.length === limit ? rows[rows.length - 1]!.position : null };
  }

  /** The id of the list's contact with that (normalised) number, or null. */
  async contactIdOf(accountId: number, clId: number, number: string): Promise<number | null> {
    return (await this.repo(accountId).contactByNumber(clId, number))?.contact_id ?? null;
  }

  /** 1012 when the account has no such list. */
  async requireList(accountId: number, clId: number): Promise<void> {
    if (!(await this.repo(accountId).listExists(clId))) throw fail(1012, `contact list ${clId}`);
  }

  /**
   * `contactList/import`: adds or updates (as action 0) every record that
   * passes its checks, in one transaction; a bad record is rejected alone,
   * listed with its index and the code it would have had on its own.
   */
  importRecords(accountId: number, clId: number, records: readonly unknown[]): Promise<ImportResult> {
    return this.importIndexed(
      accountId,
      clId,
      records.map((raw, index) => ({ index, raw })),
    );
  }

  /**
   * `importRecords` for records that carry their own index (the CSV
   * import's rows, between which the parser may have rejected some).
   */
  async importIndexed(accountId: number, clId: number, items: ReadonlyArray<{ index: number; raw: unknown }>): Promise<ImportResult> {
    const writes: Write[] = [];
    const rejected: Rejection[] = [];
    for (const { index, raw } of items) {
      try {
        writes.push({ record: parseRecord(raw) });
      } catch (err) {
        rejected.push(rejectionOf(err, index));
      }
    }
    // A large batch looks its numbers up in a list that may have grown since PostgreSQL last sampled it: sample it first.
    if (writes.length >= STATISTICS_BATCH) await this.repo(accountId, this.db.independent()).refreshStatistics();
    const now = this.nowSec();
    const { added, updated } = await this.db.transaction(async (tx) => {
      const repo = this.repo(accountId, tx);
      await repo.lockAccount();
      if (!(await repo.listExists(clId))) throw fail(1012, `contact list ${clId}`);
      const rows = await this.upsert(repo, clId, writes, now);
      const fresh = rows.filter((r) => r.isNew).length;
      return { added: fresh, updated: rows.length - fresh };
    });
    return { added, updated, rejected };
  }

  /**
   * Writes checked records into the list: a number already there (stored,
   * or earlier in `writes`) is updated, field by field as given; the others
   * are inserted with new ids at the end of the list. Answers one row per
   * write, `isNew` on the inserted ones.
   */
  private async upsert(repo: ContactListRepository, clId: number, writes: readonly Write[], now: number): Promise<Array<ListContactRow & { isNew: boolean }>> {
    const stored = await repo.contactsByNumber(clId, [...new Set(writes.map((w) => w.record.number))]);
    const newNumbers = new Set(writes.map((w) => w.record.number).filter((n) => !stored.has(n)));
    let nextId = newNumbers.size > 0 ? (await repo.takeIds(0, newNumbers.size)).contactId : 0;
    const pending = new Map<string, ListContactRow & { isNew: boolean }>();
    const out: Array<ListContactRow & { isNew: boolean }> = [];
    for (const w of writes) {
      const { record } = w;
      const before = pending.get(record.number) ?? stored.get(record.number);
      let row: ListContactRow & { isNew: boolean };
      if (before) {
        row = {
          ...before,
          isNew: false,
          name: record.name ?? before.name,
          timezone: record.timezone ?? before.timezone,
          fields: record.fields ? JSON.stringify(record.fields) : before.fields,
          schedule_at: w.scheduleAt === undefined ? before.schedule_at : w.scheduleAt,
          reschedule_at: w.rescheduleAt === undefined ? before.reschedule_at : w.rescheduleAt,
          updated_at: now,
        };
      } else {
        const id = nextId++;
        row = {
          isNew: true,
          contact_id: id,
          cl_id: clId,
          position: id,
          number: record.number,
          name: record.name ?? '',
          timezone: record.timezone ?? '',
          fields: JSON.stringify(record.fields ?? {}),
          schedule_at: w.scheduleAt ?? null,
          reschedule_at: w.rescheduleAt ?? null,
          deleted: 0,
          created_at: now,
          updated_at: now,
          callback_seq: 0,
        };
      }
      pending.set(record.number, row);
      out.push(row);
    }
    // A callback set anew is a change the dialer's campaigns each honour once (callbackChanges); the same value again is none.
    const changed = [...pending.values()].filter((r) => r.reschedule_at !== (stored.get(r.number)?.reschedule_at ?? null));
    let seq = changed.length > 0 ? await repo.takeCallbackSeqs(changed.length) : 0;
    for (const r of changed) r.callback_seq = seq++;
    await repo.writeContacts([...pending.values()].map(({ isNew: _n, ...r }) => r));
    return out;
  }

  // ---- What the dialer reads (README.md): no rules of their own, plain reads and two writes. ----

  /** True when every one of `clIds` is a list of the account. */
  async listsExist(accountId: number, clIds: readonly number[], q?: Queryable): Promise<boolean> {
    return (await this.missingLists(accountId, clIds, q)).length === 0;
  }

  /** The ids of `clIds` that are not lists of the account (empty when all are). */
  async missingLists(accountId: number, clIds: readonly number[], q?: Queryable): Promise<number[]> {
    const found = await this.repo(accountId, q).existingLists([...new Set(clIds)]);
    return clIds.filter((c) => !found.has(c));
  }

  /**
   * Contacts of the lists that are not soft-deleted, in list order (ascending
   * `position`, across the lists), after `afterPosition` (a cursor: the last
   * position read), at most `limit`. With `now` (Unix s), those whose
   * `campaignSchedule` is still ahead are left out. Attempts, DNC, calling
   * hours and callbacks are the dialer's to apply.
   */
  async contactsForDialling(
    accountId: number,
    clIds: readonly number[],
    opts: { afterPosition?: number; limit: number; now?: number },
    q?: Queryable,
  ): Promise<DialContact[]> {
    const rows = await this.repo(accountId, q).dialOrder(clIds, opts.afterPosition ?? 0, opts.limit, opts.now ?? null);
    return rows.map(dialContact);
  }

  /**
   * Two marks, one statement: `contacts` changes whenever a contact is added
   * to any list of the account (positions are taken from it, in the adding
   * transaction): a reader that read every list to the end sees nothing new
   * while it is the same. `callbacks`: the number of the last change of any
   * contact's callback (`campaignReschedule`) in the account;
   * callbackChanges reads those after a number.
   */
  listMarks(accountId: number, q?: Queryable): Promise<{ contacts: number; callbacks: number }> {
    return this.repo(accountId, q).marks();
  }

  /**
   * Contacts of the lists (soft-deleted ones too) whose callback was set to
   * a new value (or cleared) after the change `after`, in change order:
   * each carries its change number (`callbackSeq`).
   */
  async callbackChanges(accountId: number, clIds: readonly number[], after: number, limit: number, q?: Queryable): Promise<DialContact[]> {
    const rows = await this.repo(accountId, q).callbackChanges([...new Set(clIds)], after, limit);
    return rows.map(dialContact);
  }

  /** One contact by its id (soft-deleted ones too: `deleted` says so), or null. */
  async contactById(accountId: number, contactId: number, q?: Queryable): Promise<DialContact | null> {
    const row = await this.repo(accountId, q).contactById(contactId);
    return row ? dialContact(row) : null;
  }

  /** The contacts among `ids` by id (soft-deleted ones too): the dialer's read of one tick's dials, in its transaction `q`. */
  async contactsByIds(accountId: number, ids: readonly number[], q?: Queryable): Promise<Map<number, DialContact>> {
    const rows = await this.repo(accountId, q).contactsByIds([...new Set(ids)]);
    return new Map(rows.map((r) => [r.contact_id, dialContact(r)]));
  }

  /** How many contacts the lists hold: `live` (not soft-deleted) and `deleted`. */
  contactCounts(accountId: number, clIds: readonly number[], q?: Queryable): Promise<{ live: number; deleted: number }> {
    return this.repo(accountId, q).counts([...new Set(clIds)]);
  }
}
