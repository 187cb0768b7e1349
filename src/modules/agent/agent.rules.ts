import { contactDigits } from '../../http/contact.js';
import { agentError, fail } from '../../errors/catalogue.js';
import { didDigits } from '../did/did.service.js';

/*
 * The field rules of Agent/create and Agent/update (PRODUCT.md §5), as pure
 * functions: each returns the stored form or throws the field's code.
 */

export const WEEKDAYS = ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'] as const;
/** Working times are minutes after midnight in the account's time zone: 0 ≤ from < to ≤ 1440. */
export const MINUTES_PER_DAY = 1440;
export const MAX_WORKING_RULES = 50;
export const MAX_FAVORITE_LENGTH = 1000;

export interface WorkingRule {
  wDays: string[];
  from: number;
  to: number;
}

/** Letters (any script), digits, spaces, dots, apostrophes and hyphens, with at least one letter; 1515. */
export function agentName(value: string): string {
  const name = value.trim().replace(/\s+/g, ' ');
  if (name.length < 1 || name.length > 100 || !/^[\p{L}\p{M}\p{N} .'-]+$/u.test(name) || !/\p{L}/u.test(name)) {
    throw agentError(1515, 'letters, digits, spaces, dots, apostrophes and hyphens, 1 to 100 characters');
  }
  return name;
}

/** Lower-cased; a plain address check (no code of its own in the spec: 1000). */
export function agentEmail(value: string): string {
  const email = value.trim().toLowerCase();
  if (email.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw fail(1000, 'email is not a valid e-mail address');
  return email;
}

/** 6 to 15 digits once every non-digit is removed; 1514. */
export function agentPhone(value: string | number): string {
  const digits = contactDigits(value);
  if (digits === null) throw agentError(1514, 'phone must have 6 to 15 digits');
  return digits;
}

/** Exactly eight digits, as a string or an integer; 1519. */
export function callPass(value: string | number): string {
  const s = typeof value === 'number' ? (Number.isInteger(value) ? String(value) : '') : value;
  if (!/^[0-9]{8}$/.test(s)) throw agentError(1519);
  return s;
}

export function destType(value: string): 'MOBILE' | 'SIP' {
  if (value !== 'MOBILE' && value !== 'SIP') throw agentError(1513, 'dest_type must be MOBILE or SIP');
  return value;
}

/** MOBILE: a phone number (6 to 15 digits, stored as digits). SIP: `[sip:]user[@host[:port]]`. Else 1510. */
export function destValue(type: 'MOBILE' | 'SIP', value: string | number): string {
  if (type === 'MOBILE') {
    const digits = contactDigits(value);
    if (digits === null) throw agentError(1510, 'a MOBILE destination is a phone number of 6 to 15 digits');
    return digits;
  }
  const s = String(value).trim();
  if (s.length > 200 || !/^(sip:)?[A-Za-z0-9._~+-]+(@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?)?$/.test(s)) {
    throw agentError(1510, 'a SIP destination is [sip:]user[@host[:port]]');
  }
  return s;
}

/** Weekday codes MON…SUN (upper case, no repeats) and 0 ≤ from < to ≤ 1440 minutes; 1511. */
export function workingRules(rules: Array<{ wDays: unknown; from: unknown; to: unknown }>): WorkingRule[] {
  if (rules.length > MAX_WORKING_RULES) throw agentError(1511, `at most ${MAX_WORKING_RULES} rules`);
  return rules.map((r, i) => {
    const days = r.wDays;
    if (!Array.isArray(days) || days.length === 0 || days.some((d) => !(WEEKDAYS as readonly unknown[]).includes(d)) || new Set(days).size !== days.length) {
      throw agentError(1511, `working[${i}].wDays must list distinct weekday codes ${WEEKDAYS.join(', ')}`);
    }
    const { from, to } = r;
    if (
      typeof from !== 'number' ||
      typeof to !== 'number' ||
      !Number.isInteger(from) ||
      !Number.isInteger(to) ||
      from < 0 ||
      to > MINUTES_PER_DAY ||
      from >= to
    ) {
      throw agentError(1511, `working[${i}]: from and to are whole minutes after midnight, 0 <= from < to <= ${MINUTES_PER_DAY}`);
    }
    return { wDays: days as string[], from, to };
  });
}

/** Free text up to 1000 characters without control characters; 1528. */
export function favorite(value: string): string {
  // eslint-disable-next-line no-control-regex
  if (value.length > MAX_FAVORITE_LENGTH || /[\u0000-\u001f\u007f]/.test(value)) throw agentError(1528, `text of at most ${MAX_FAVORITE_LENGTH} characters`);
  return value;
}

/** An array or a comma-separated string of DIDs, each reduced to digits; 1516 for a malformed one. */
export function allowDidList(value: string | Array<string | number>): string[] {
  const items =
    typeof value === 'string'
      ? value
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '')
      : value;
  const out: string[] = [];
  for (const item of items) {
    const did = didDigits(item);
    if (did === null) throw agentError(1516, `${JSON.stringify(item)} is not a DID`);
    if (!out.includes(did)) out.push(did);
  }
  return out;
}

/** The `group` object of create/update/updateAgentGroupMapping: group id keys, `{receive_call: Y|N}` values; 1505. */
export function groupMapping(value: Record<string, { receive_call: string }>): Array<{ groupId: number; receiveCall: 'Y' | 'N' }> {
  return Object.entries(value).map(([key, v]) => {
    if (!/^[0-9]{1,15}$/.test(key) || Number(key) < 1) throw agentError(1505, `${JSON.stringify(key)} is not a group id`);
    if (v.receive_call !== 'Y' && v.receive_call !== 'N') throw agentError(1505, `group ${key}: receive_call must be Y or N`);
    return { groupId: Number(key), receiveCall: v.receive_call };
  });
}
