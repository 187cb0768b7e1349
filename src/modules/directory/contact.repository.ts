import { dialectOf } from '../../db/dialect.js';
import { inList } from '../../db/in-list.js';
import type { TenantQueries } from '../../db/tenant.js';
import type { ContactRecord, ContactView, CustomValue } from './contact-fields.js';

interface ContactRow {
  contact: string;
  name: string | null;
  email: string | null;
  dob: string | null;
  address: string | null;
  company: string | null;
  designation: string | null;
  custom: string | null;
  created_at: number;
  updated_at: number;
  last_call: string | null;
  total_calls: number | null;
  source: number | null;
  vip: number | null;
  blacklist: number | null;
  obd: string | null;
  ibd: string | null;
  pc: string | null;
  ctc: string | null;
}

const flag = (v: number | null) => (v === null ? null : Number(v) === 1);
const num = (v: number | null) => (v === null ? null : Number(v));

function toRecord(r: ContactRow): ContactRecord {
  return {
    contact: r.contact,
    name: r.name,
    email: r.email,
    dob: r.dob,
    address: r.address,
    company: r.company,
    designation: r.designation,
    custom: r.custom ? (JSON.parse(r.custom) as Record<string, CustomValue>) : {},
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    lastCall: r.last_call,
    totalCalls: num(r.total_calls),
    source: num(r.source),
    vip: flag(r.vip),
    blacklist: flag(r.blacklist),
    obd: r.obd,
    ibd: r.ibd,
    pc: r.pc,
    ctc: r.ctc,
  };
}

const CU_COLUMNS = 'name, email, dob, address, company, designation, custom';
const OT_COLUMNS = 'created_at, updated_at, last_call, total_calls, source, vip, blacklist';
const COLUMNS = `contact, ${CU_COLUMNS}, ${OT_COLUMNS}, obd, ibd, pc, ctc`;

const boolParam = (v: boolean | null) => (v === null ? null : v ? 1 : 0);

/** The values of a record after the account id, in COLUMNS order. */
function params(r: ContactRecord) {
  return [
    r.contact,
    r.name,
    r.email,
    r.dob,
    r.address,
    r.company,
    r.designation,
    Object.keys(r.custom).length ? JSON.stringify(r.custom) : null,
    r.createdAt,
    r.updatedAt,
    r.lastCall,
    r.totalCalls,
    r.source,
    boolParam(r.vip),
    boolParam(r.blacklist),
    r.obd,
    r.ibd,
    r.pc,
    r.ctc,
  ];
}

const PLACEHOLDERS = Array.from({ length: 19 }, (_, i) => `$${i + 2}`).join(', ');

type ViewValues = Array<string | number | null>;

/** A view read's values (CU_COLUMNS, then OT_COLUMNS when `withMeta`) as getInfo's record. */
function viewOf(contact: string, r: ViewValues, withMeta: boolean): ContactView {
  const str = (i: number) => r[i] as string | null;
  return {
    contact,
    name: str(0),
    email: str(1),
    dob: str(2),
    address: str(3),
    company: str(4),
    designation: str(5),
    custom: r[6] ? (JSON.parse(r[6] as string) as Record<string, CustomValue>) : {},
    createdAt: withMeta ? Number(r[7]) : 0,
    updatedAt: withMeta ? Number(r[8]) : 0,
    lastCall: withMeta ? str(9) : null,
    totalCalls: withMeta ? num(r[10] as number | null) : null,
    source: withMeta ? num(r[11] as number | null) : null,
    vip: withMeta ? flag(r[12] as number | null) : null,
    blacklist: withMeta ? flag(r[13] as number | null) : null,
  };
}

/** The contacts table. Keyed by (account_id, contact): lookups are one primary-key probe. */
export class ContactRepository {
  constructor(private readonly t: TenantQueries) {}

  async setObd(contact: string, obd: string, now: number): Promise<boolean> {
    const res = await this.t.run('UPDATE contacts SET obd = $3, updated_at = $4 WHERE account_id = $1 AND contact = $2', [contact, obd, now]);
    return res.changes === 1;
  }

  async find(contact: string): Promise<ContactRecord | undefined> {
    const row = await this.t.get<ContactRow>(`SELECT ${COLUMNS} FROM contacts WHERE account_id = $1 AND contact = $2`, [contact]);
    return row && toRecord(row);
  }

  /**
   * getInfo's read (a hot lookup): only the columns it shows, as an array
   * (raw mode) rather than a 19-property row object: ~2 µs less per lookup
   * on SQLite; one row (getValues), not all of them. Without `withMeta` the
   * metadata is not read (zeros / nulls).
   */
  async view(contact: string, withMeta: boolean): Promise<ContactView | undefined> {
    const sql = withMeta
      ? `SELECT ${CU_COLUMNS}, ${OT_COLUMNS} FROM contacts WHERE account_id = $1 AND contact = $2`
      : `SELECT ${CU_COLUMNS} FROM contacts WHERE account_id = $1 AND contact = $2`;
    const r = (await this.t.getValues(sql, [contact])) as ViewValues | undefined;
    return r && viewOf(contact, r, withMeta);
  }

  /** view() of each of `contacts` that exists, by contact: one statement (db/batched-point-read.ts). */
  async viewMany(contacts: string[], withMeta: boolean): Promise<Map<string, ContactView>> {
    const { sql: inSql, param } = inList(this.t, 'contact', 2, contacts);
    // The contact comes last, after the columns viewOf reads by position.
    const rows = (await this.t.allValues(`SELECT ${CU_COLUMNS}${withMeta ? `, ${OT_COLUMNS}` : ''}, contact FROM contacts WHERE account_id = $1 AND ${inSql}`, [
      param,
    ])) as ViewValues[];
    return new Map(rows.map((r) => [r[r.length - 1] as string, viewOf(r[r.length - 1] as string, r, withMeta)]));
  }

  /** The row, locked until the transaction ends (PostgreSQL; SQLite's write transaction already excludes writers). */
  async findForUpdate(contact: string): Promise<ContactRecord | undefined> {
    const row = await this.t.get<ContactRow>(`SELECT ${COLUMNS} FROM contacts WHERE account_id = $1 AND contact = $2${dialectOf(this.t).forUpdate}`, [contact]);
    return row && toRecord(row);
  }

  /** false when the contact exists already. */
  async insert(r: ContactRecord): Promise<boolean> {
    const res = await this.t.run(
      `INSERT INTO contacts (account_id, ${COLUMNS}) VALUES ($1, ${PLACEHOLDERS}) ON CONFLICT (account_id, contact) DO NOTHING`,
      params(r),
    );
    return res.changes === 1;
  }

  /** false when there was none. */
  async remove(contact: string): Promise<boolean> {
    return (await this.t.run('DELETE FROM contacts WHERE account_id = $1 AND contact = $2', [contact])).changes > 0;
  }

  async replace(r: ContactRecord): Promise<void> {
    await this.t.run(
      `UPDATE contacts SET name = $3, email = $4, dob = $5, address = $6, company = $7, designation = $8, custom = $9,
         created_at = $10, updated_at = $11, last_call = $12, total_calls = $13, source = $14, vip = $15, blacklist = $16,
         obd = $17, ibd = $18, pc = $19, ctc = $20
       WHERE account_id = $1 AND contact = $2`,
      params(r),
    );
  }

  /**
   * Contacts whose number starts with `prefix`, in number order: an index
   * range on the primary key (`prefix` ≤ contact < `prefix:`; ':' follows '9').
   */
  async search(prefix: string, limit: number): Promise<ContactRecord[]> {
    const rows = await this.t.all<ContactRow>(
      `SELECT ${COLUMNS} FROM contacts WHERE account_id = $1 AND contact >= $2 AND contact < $3 ORDER BY contact LIMIT $4`,
      [prefix, `${prefix}:`, limit],
    );
    return rows.map(toRecord);
  }

  /** What routing needs: whether the number is in the directory and its own blacklist flag. */
  async blacklistFlag(contact: string): Promise<{ blacklist: boolean } | undefined> {
    const row = await this.t.get<{ blacklist: number | null }>('SELECT blacklist FROM contacts WHERE account_id = $1 AND contact = $2', [contact]);
    return row && { blacklist: Number(row.blacklist ?? 0) === 1 };
  }

  /** Of `contacts`, those whose Directory contact says `other.blacklist: true`: one statement. */
  async blacklistedAmong(contacts: readonly string[]): Promise<Set<string>> {
    if (contacts.length === 0) return new Set();
    const { sql, param } = inList(this.t, 'contact', 2, [...new Set(contacts)]);
    const rows = await this.t.all<{ contact: string }>(`SELECT contact FROM contacts WHERE account_id = $1 AND blacklist = 1 AND ${sql}`, [param]);
    return new Set(rows.map((r) => r.contact));
  }

  /**
   * Bulk load (seed): one multi-row INSERT of minimal records, existing numbers
   * kept. Returns how many were new.
   */
  async insertMany(rows: Array<{ contact: string; name: string; email: string; now: number }>): Promise<number> {
    if (rows.length === 0) return 0;
    const values: Array<string | number> = [];
    const tuples = rows.map((r, i) => {
      values.push(r.contact, r.name, r.email, r.now);
      const b = i * 4 + 2;
      return `($1, $${b}, $${b + 1}, $${b + 2}, $${b + 3}, $${b + 3})`;
    });
    const res = await this.t.run(
      `INSERT INTO contacts (account_id, contact, name, email, created_at, updated_at) VALUES ${tuples.join(', ')}
       ON CONFLICT (account_id, contact) DO NOTHING`,
      values,
    );
    return res.changes;
  }
}
