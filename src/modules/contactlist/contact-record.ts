import { AppError, fail } from '../../errors/catalogue.js';
import { contactDigits } from '../../http/contact.js';

/** A field value of a list contact: scalars only (they become CSV cells and push-report data). */
export type FieldValue = string | number | boolean | null;

/** One contact of a list as a request gives it, checked and normalised. */
export interface ContactRecord {
  /** Digits only (the Directory's normalisation, PRODUCT.md §3). */
  number: string;
  name?: string;
  /** An IANA time zone name, or '' for none (the campaign's zone applies). */
  timezone?: string;
  fields?: Record<string, FieldValue>;
}

export const MAX_NAME = 200;
export const MAX_FIELDS = 50;
export const MAX_FIELD_KEY = 64;
export const MAX_FIELD_VALUE = 1000;

const zones = new Map<string, boolean>();

/** An IANA time zone name the runtime knows (cached: a CSV import checks the same few zones a million times). */
export function isTimeZoneName(tz: string): boolean {
  let known = zones.get(tz);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
      known = tz.length <= 64;
    } catch {
      known = false;
    }
    if (zones.size < 10_000) zones.set(tz, known);
  }
  return known;
}

/**
 * Checks one record (`{number, name?, timezone?, fields?}`) and normalises
 * its number. Throws the AppError that rejects it: 1005 for a number that is
 * not 6 to 15 digits, 1001 for an unknown time zone, 1000 for anything else
 * of the wrong shape (the message names the field).
 */
export function parseRecord(raw: unknown): ContactRecord {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw fail(1000, 'record must be an object');
  const r = raw as Record<string, unknown>;
  if (r.number === undefined || r.number === null || r.number === '') throw fail(1000, 'record.number is required');
  const number = contactDigits(r.number);
  if (number === null) throw fail(1005, 'record.number must have 6 to 15 digits');
  const out: ContactRecord = { number };
  if (r.name !== undefined && r.name !== null) {
    if (typeof r.name !== 'string' || r.name.length > MAX_NAME) throw fail(1000, `record.name must be a string of at most ${MAX_NAME} characters`);
    out.name = r.name.trim();
  }
  if (r.timezone !== undefined && r.timezone !== null && r.timezone !== '') {
    if (typeof r.timezone !== 'string' || !isTimeZoneName(r.timezone))
      throw fail(1001, `record.timezone ${JSON.stringify(r.timezone)} is not an IANA time zone`);
    out.timezone = r.timezone;
  } else if (r.timezone === '') out.timezone = '';
  if (r.fields !== undefined && r.fields !== null) out.fields = parseFields(r.fields);
  return out;
}

function parseFields(raw: unknown): Record<string, FieldValue> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw fail(1000, 'record.fields must be an object');
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length > MAX_FIELDS) throw fail(1000, `record.fields holds at most ${MAX_FIELDS} fields`);
  const out: Record<string, FieldValue> = {};
  for (const [key, value] of entries) {
    if (key === '' || key.length > MAX_FIELD_KEY) throw fail(1000, `record.fields keys have 1 to ${MAX_FIELD_KEY} characters`);
    if (value !== null && typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw fail(1000, `record.fields.${key} must be a string, number, boolean or null`);
    }
    if (typeof value === 'string' && value.length > MAX_FIELD_VALUE) throw fail(1000, `record.fields.${key} has more than ${MAX_FIELD_VALUE} characters`);
    out[key] = value;
  }
  return out;
}

/** A Unix-seconds time of `campaignSchedule` / `campaignReschedule`: 0 clears it, else 1001 unless a positive integer. */
export function parseTime(raw: unknown, field: string): number | null | undefined {
  if (raw === undefined || raw === null) return undefined;
  const n = typeof raw === 'string' && /^\d{1,12}$/.test(raw) ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > 99_999_999_999) {
    throw fail(1001, `${field} must be a Unix time in seconds`);
  }
  return n === 0 ? null : n;
}

/** The code and message a rejected record is listed with (an unexpected error is not a rejection: it propagates). */
export function rejectionOf(err: unknown, index: number): { index: number; code: number; message: string } {
  if (err instanceof AppError) return { index, code: err.code, message: err.message };
  throw err;
}
