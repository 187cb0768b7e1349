import type { Clock } from '../../clock.js';
import type { Database, Queryable } from '../../db/types.js';
import { BatchedPointRead } from '../../db/batched-point-read.js';
import { tenant } from '../../db/tenant.js';
import { directoryError, fail } from '../../errors/catalogue.js';
import type { AccountService } from '../account/account.service.js';
import { applyPatch, newRecord, parseContactInput, type ContactView } from './contact-fields.js';
import { ContactRepository } from './contact.repository.js';
import { project } from './contact-views.js';

export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 500;

export interface ContactServiceDeps {
  db: Database;
  clock: Clock;
  accounts: Pick<AccountService, 'settings'>;
}

/** Directory contacts: create, merge-update, read, project and prefix search. */
export class ContactService {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly accounts: Pick<AccountService, 'settings'>;

  /** getInfo's reads of a turn, one statement on PostgreSQL, with and without the metadata. */
  private readonly views: Record<'meta' | 'plain', BatchedPointRead<ContactView>>;

  constructor({ db, clock, accounts }: ContactServiceDeps) {
    this.db = db;
    this.clock = clock;
    this.accounts = accounts;
    const views = (withMeta: boolean) =>
      new BatchedPointRead<ContactView>(
        db,
        (t, contacts) => new ContactRepository(t).viewMany(contacts, withMeta),
        (t, contact) => new ContactRepository(t).view(contact, withMeta),
      );
    this.views = { meta: views(true), plain: views(false) };
  }

  private repo(accountId: number, q = this.db as Parameters<typeof tenant>[0]) {
    return new ContactRepository(tenant(q, accountId));
  }

  private nowSec() {
    return Math.floor(this.clock.now() / 1000);
  }

  /** 1504 when the number is already in the directory. */
  async create(accountId: number, contact: string, contactinfo: unknown, other: unknown): Promise<void> {
    const { customFields } = await this.accounts.settings(accountId);
    const patch = parseContactInput(contactinfo, other, customFields, 'create');
    const inserted = await this.repo(accountId).insert(newRecord(contact, patch, this.nowSec()));
    if (!inserted) throw directoryError(1504, `contact ${contact} already exists`);
  }

  /** Only supplied fields change; 1012 when the contact does not exist. */
  async update(accountId: number, contact: string, contactinfo: unknown, other: unknown): Promise<void> {
    const { customFields } = await this.accounts.settings(accountId);
    const patch = parseContactInput(contactinfo, other, customFields, 'update');
    await this.db.transaction(async (tx) => {
      const repo = this.repo(accountId, tx);
      const current = await repo.findForUpdate(contact);
      if (!current) throw fail(1012, `contact ${contact} not found`);
      await repo.replace(applyPatch(current, patch, this.nowSec()));
    });
  }

  /** Directory/delete: the entry only (its DNC, sticky and blacklist entries stay: privacy/erase removes everything); 1012 when none. */
  async remove(accountId: number, contact: string): Promise<void> {
    if (!(await this.repo(accountId).remove(contact))) throw fail(1012, `contact ${contact} not found`);
  }

  /** Whether the number's Directory contact says `other.blacklist: true` (the dialer's check at each dial); false without a contact. */
  async blacklisted(accountId: number, contact: string): Promise<boolean> {
    return (await this.repo(accountId).find(contact))?.blacklist === true;
  }

  /** Of `contacts`, those whose Directory contact says `other.blacklist: true` (the dialer's check of one tick's dials, in its transaction `q`). */
  blacklistedAmong(accountId: number, contacts: readonly string[], q: Queryable = this.db): Promise<Set<string>> {
    return this.repo(accountId, q).blacklistedAmong(contacts);
  }

  /** Sets `other.obd` (the outbound dialer's last outcome) of the number's contact, if there is one. */
  setObd(accountId: number, contact: string, obd: string): Promise<boolean> {
    return this.repo(accountId).setObd(contact, obd, this.nowSec());
  }

  /** getInfo's contact (its `Ot` fields too when `withMeta`): a hot lookup, read through the batched point read. */
  async info(accountId: number, contact: string, withMeta: boolean): Promise<ContactView> {
    const record = await this.views[withMeta ? 'meta' : 'plain'].read(accountId, contact);
    if (!record) throw fail(1012, `contact ${contact} not found`);
    return record;
  }

  /** getFields: each requested name → value (null where unset or unknown); names = null for `all`. */
  async fields(accountId: number, contact: string, names: string[] | null) {
    const record = await this.repo(accountId).find(contact);
    if (!record) throw fail(1012, `contact ${contact} not found`);
    return project(record, names, names === null ? await this.configuredKeys(accountId) : []);
  }

  /** Contacts whose number starts with `prefix`; 1012 "no data found" when none. */
  async search(accountId: number, prefix: string, names: string[] | null, limit: number) {
    const records = await this.repo(accountId).search(prefix, limit);
    if (records.length === 0) throw fail(1012);
    const configured = names === null ? await this.configuredKeys(accountId) : [];
    return records.map((r) => ({ contact: r.contact, ...project(r, names, configured) }));
  }

  /**
   * Bulk load (seed, benchmarks): minimal valid records in one transaction per
   * call, existing numbers kept. Returns how many were new.
   */
  async bulkInsert(accountId: number, rows: Array<{ contact: string; name: string; email: string }>, batch = 500): Promise<number> {
    const now = this.nowSec();
    return this.db.transaction(async (tx) => {
      const repo = this.repo(accountId, tx);
      let added = 0;
      for (let i = 0; i < rows.length; i += batch) added += await repo.insertMany(rows.slice(i, i + batch).map((r) => ({ ...r, now })));
      return added;
    });
  }

  private async configuredKeys(accountId: number): Promise<string[]> {
    return (await this.accounts.settings(accountId)).customFields.map((f) => f.key);
  }
}
