import { insideCallingHours, zoneFor } from './calling-hours.js';
import type { Campaign } from './campaign.service.js';
import type { ListContact } from './contact-lists.port.js';

/** Outside calling hours: look again this much later. */
const HOURS_RECHECK_SECS = 60;
/** Why a contact was dialled no more. */
const EXCLUDED = 'excluded';

/** What is known of a number at the moment of dialling (read in the dial's transaction). */
export interface NumberFacts {
  /** DncService's status: 0 not listed, -1 permanently, else listed until then. */
  dnc: number;
  /** Blacklisted for the campaign's DID, or `other.blacklist` in the Directory. */
  blacklisted: boolean;
}

/** A contact left for later (or for good, `done`) with why: `campaign_contacts`' next state. */
export interface Later {
  nextAt: number;
  done: boolean;
  outcome: string | null;
  /** The list's number now (kept on the attempt row), null when the contact is gone. */
  number: string | null;
}

export type Verdict = { dial: string } | { later: Later };

/**
 * The compliance checks of §13 on the list's contact as it is at the moment
 * of dialling, in order: gone, scheduled later, outside calling hours in the
 * contact's zone, DNC, blacklists. Pure: the caller reads the contact and the
 * number's facts and writes the verdict, so the tick's batch and a single
 * dial judge alike.
 */
export function verdictOf(
  contact: ListContact | null | undefined,
  facts: (number: string) => NumberFacts,
  c: Pick<Campaign, 'timezone' | 'callingHours'>,
  accountZone: string,
  now: number,
): Verdict {
  if (!contact || contact.deleted) return { later: { nextAt: now, done: true, outcome: 'deleted', number: null } };
  const number = contact.number;
  if (contact.scheduleAt !== null && contact.scheduleAt > now) return { later: { nextAt: contact.scheduleAt, done: false, outcome: null, number } };
  if (!insideCallingHours(now, zoneFor(contact.timezone, c.timezone, accountZone), c.callingHours))
    return { later: { nextAt: now + HOURS_RECHECK_SECS, done: false, outcome: null, number } };
  const f = facts(number);
  // A DNC until a time: look again then; a permanent one: never.
  if (f.dnc !== 0) return { later: { nextAt: f.dnc > 0 ? f.dnc : now, done: f.dnc < 0, outcome: f.dnc < 0 ? EXCLUDED : 'dnc', number } };
  if (f.blacklisted) return { later: { nextAt: now, done: true, outcome: EXCLUDED, number } };
  return { dial: number };
}
