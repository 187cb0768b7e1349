import { contactDigits } from '../../http/contact.js';
import { fail } from '../../errors/catalogue.js';
import type { CustomField } from '../account/account.service.js';

/**
 * The contact record's field rules (spec "Contact record", PRODUCT.md §5),
 * as pure functions: what `Directory/create` and `update` accept in
 * `contactinfo` and `other`, and how a stored record reads back.
 */

export type CustomValue = string | number;

/** A stored contact. `null` = never set (omitted by getInfo, `null` in getFields). */
export interface ContactRecord {
  contact: string;
  name: string | null;
  email: string | null;
  dob: string | null;
  address: string | null;
  company: string | null;
  designation: string | null;
  custom: Record<string, CustomValue>;
  createdAt: number;
  updatedAt: number;
  lastCall: string | null;
  totalCalls: number | null;
  source: number | null;
  vip: boolean | null;
  blacklist: boolean | null;
  obd: string | null;
  ibd: string | null;
  pc: string | null;
  ctc: string | null;
}

/** What getInfo reads (contact-views.ts cuOf / otOf): the record without the call-flow fields (obd, ibd, pc, ctc). */
export type ContactView = Omit<ContactRecord, 'obd' | 'ibd' | 'pc' | 'ctc'>;

type Scalar = Exclude<keyof ContactRecord, 'contact' | 'custom' | 'createdAt' | 'updatedAt'>;

/** The changes one create/update asks for: a field set to null is cleared; custom keys likewise. */
export interface ContactPatch {
  fields: Partial<Pick<ContactRecord, Scalar>>;
  custom: Record<string, CustomValue | null>;
  /** other.create_date as Unix seconds (midnight UTC), create only. */
  createdAt?: number;
}

/** The field names `contactinfo` takes (besides custom_* keys) and `other` takes: the Directory's words for a contact. */
export const CONTACTINFO_FIELDS = ['name', 'email', 'dob', 'address', 'company', 'designation'] as const;
export const OTHER_FIELDS = ['create_date', 'updatetime', 'lastcalltime', 'totalcalls', 'source', 'vip', 'blacklist', 'obd', 'ibd', 'pc', 'ctc'] as const;

const NAME = /^[\p{L}\p{M}\s.]*$/u;
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const DATE = /^(\d{2})-(\d{2})-(\d{4})$/;
export const CUSTOM_KEY = /^custom_[A-Za-z0-9_]{1,60}$/;
const MAX_TEXT = 1000;

const bad = (field: string, why: string) => fail(1000, `${field} ${why}`);

/** dd-mm-YYYY that is a real calendar date → Unix seconds at midnight UTC, else null. */
export function parseDate(value: string): number | null {
  const m = DATE.exec(value);
  if (!m) return null;
  const [day, month, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(year, month - 1, day);
  const d = new Date(ms);
  if (year < 1 || d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return null;
  return ms / 1000;
}

/** Unix seconds → dd-mm-YYYY (UTC calendar date). */
export function formatDate(seconds: number): string {
  const d = new Date(seconds * 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getUTCDate())}-${two(d.getUTCMonth() + 1)}-${String(d.getUTCFullYear()).padStart(4, '0')}`;
}

function text(field: string, v: unknown, max = MAX_TEXT): string {
  if (typeof v !== 'string') throw bad(field, 'must be a string');
  if (v.length > max) throw bad(field, `must be at most ${max} characters`);
  return v;
}

function date(field: string, v: unknown): string {
  if (typeof v !== 'string' || parseDate(v) === null) throw bad(field, 'must be a real date written dd-mm-YYYY');
  return v;
}

function email(field: string, v: unknown): string {
  if (typeof v !== 'string' || v.length > 254 || !EMAIL.test(v)) throw bad(field, 'must be a valid e-mail address');
  return v;
}

function count(field: string, v: unknown): number {
  const n = typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw bad(field, 'must be a non-negative integer');
  return n;
}

function bool(field: string, v: unknown): boolean {
  if (v === true || v === 1) return true;
  if (v === false || v === 0) return false;
  throw bad(field, 'must be true or false');
}

/** A value the client wants removed: null or an empty string. */
const clears = (v: unknown) => v === null || v === '';

function customValue(field: string, v: unknown, config: CustomField | undefined): CustomValue {
  switch (config?.type) {
    case 'number': {
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isFinite(n)) throw bad(field, 'must be a number');
      return n;
    }
    case 'date':
      return date(field, v);
    case 'email':
      return email(field, v);
    case 'phone': {
      const digits = contactDigits(v);
      if (digits === null) throw bad(field, 'must be a phone number of 6 to 15 digits');
      return digits;
    }
    default:
      // text, or a custom_* key the account has not configured: stored as text.
      if (typeof v === 'number' || typeof v === 'boolean') return String(v);
      return text(field, v);
  }
}

function asObject(field: string, v: unknown): Record<string, unknown> | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(field, 'must be an object');
  return v as Record<string, unknown>;
}

const INFO_TEXT = { address: 'address', company: 'company', designation: 'designation' } as const;
const OTHER_TEXT = { obd: 'obd', ibd: 'ibd', pc: 'pc', ctc: 'ctc' } as const;

/**
 * Validates `contactinfo` / `other` of a create or update and returns the
 * patch. Unknown keys are ignored (as unknown body fields are); a custom_*
 * key is validated by its configured type, or stored as text when the account
 * has not configured it. Every failure is 1000 naming the field.
 */
export function parseContactInput(rawInfo: unknown, rawOther: unknown, customFields: readonly CustomField[], mode: 'create' | 'update'): ContactPatch {
  const info = asObject('contactinfo', rawInfo);
  const other = asObject('other', rawOther);
  if (!info && !other) throw fail(1000, 'at least one of contactinfo or other must be given');
  const patch: ContactPatch = { fields: {}, custom: {} };
  const configured = new Map(customFields.map((f) => [f.key, f]));

  if (info) {
    for (const [key, v] of Object.entries(info)) {
      const field = `contactinfo.${key}`;
      if (v === undefined) continue;
      if (key === 'name') patch.fields.name = clears(v) ? null : nameValue(field, v);
      else if (key === 'email') patch.fields.email = clears(v) ? null : email(field, v);
      else if (key === 'dob') patch.fields.dob = clears(v) ? null : date(field, v);
      else if (key in INFO_TEXT) patch.fields[key as keyof typeof INFO_TEXT] = clears(v) ? null : text(field, v);
      else if (CUSTOM_KEY.test(key)) {
        const config = configured.get(key);
        if (clears(v) && config?.required) throw bad(field, 'is required');
        patch.custom[key] = clears(v) ? null : customValue(field, v, config);
      }
    }
  }
  if (mode === 'create') {
    for (const f of customFields) {
      if (f.required && (patch.custom[f.key] === undefined || patch.custom[f.key] === null)) throw bad(`contactinfo.${f.key}`, 'is required');
    }
  }

  if (other) {
    for (const [key, v] of Object.entries(other)) {
      const field = `other.${key}`;
      if (v === undefined) continue;
      if (key === 'updatetime')
        date(field, v); // validated; the service keeps the update time itself
      else if (key === 'create_date') {
        if (mode === 'update') throw bad(field, 'can only be given on create');
        patch.createdAt = parseDate(date(field, v))!;
      } else if (key === 'lastcalltime') patch.fields.lastCall = clears(v) ? null : date(field, v);
      else if (key === 'totalcalls') patch.fields.totalCalls = v === null ? null : count(field, v);
      else if (key === 'source') patch.fields.source = v === null ? null : count(field, v);
      else if (key === 'vip') patch.fields.vip = v === null ? null : bool(field, v);
      else if (key === 'blacklist') patch.fields.blacklist = v === null ? null : bool(field, v);
      else if (key in OTHER_TEXT) patch.fields[key as keyof typeof OTHER_TEXT] = clears(v) ? null : text(field, v, 200);
    }
  }
  return patch;
}

function nameValue(field: string, v: unknown): string {
  const s = text(field, v, 200);
  if (!NAME.test(s)) throw bad(field, 'may contain only letters, whitespace and dots');
  return s;
}

/** A new record from a create patch. */
export function newRecord(contact: string, patch: ContactPatch, now: number): ContactRecord {
  const empty: ContactRecord = {
    contact,
    name: null,
    email: null,
    dob: null,
    address: null,
    company: null,
    designation: null,
    custom: {},
    createdAt: patch.createdAt ?? now,
    updatedAt: now,
    lastCall: null,
    totalCalls: null,
    source: null,
    vip: null,
    blacklist: null,
    obd: null,
    ibd: null,
    pc: null,
    ctc: null,
  };
  return applyPatch(empty, patch, now);
}

/** The record after an update: only supplied fields change (merge). */
export function applyPatch(record: ContactRecord, patch: ContactPatch, now: number): ContactRecord {
  const custom = { ...record.custom };
  for (const [k, v] of Object.entries(patch.custom)) {
    if (v === null) delete custom[k];
    else custom[k] = v;
  }
  return { ...record, ...patch.fields, custom, updatedAt: now };
}
