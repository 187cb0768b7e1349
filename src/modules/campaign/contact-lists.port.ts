import type { Queryable } from '../../db/types.js';

/**
 * What the campaign module reads of the contact lists (modules/contactlist,
 * its ContactListService answers every method): declared here so the dialer
 * names only what it uses.
 */
export interface ListContact {
  contactId: number;
  clId: number;
  /** List order across the lists: ascending. */
  position: number;
  number: string;
  name: string;
  /** IANA zone, or '' (the campaign's zone applies). */
  timezone: string;
  fields: Record<string, string | number | boolean | null>;
  /** `campaignSchedule`: not dialled before (Unix s). */
  scheduleAt: number | null;
  /** `campaignReschedule`: a callback due then (Unix s). */
  rescheduleAt: number | null;
  /** The account's number of the change that set `rescheduleAt` (ContactListsPort.callbackChanges). */
  callbackSeq: number;
  deleted: boolean;
}

export interface ContactListsPort {
  /** Of `clIds`, those that are not lists of the account. */
  missingLists(accountId: number, clIds: readonly number[]): Promise<number[]>;
  /** Contacts (not soft-deleted) in list order after `afterPosition`. */
  contactsForDialling(accountId: number, clIds: readonly number[], opts: { afterPosition?: number; limit: number }): Promise<ListContact[]>;
  /**
   * `contacts` changes whenever a contact is added to any list of the
   * account; `callbacks` is the number of the last change of a contact's
   * `campaignReschedule` in the account (ContactListService.listMarks).
   */
  listMarks(accountId: number): Promise<{ contacts: number; callbacks: number }>;
  /** Contacts whose `campaignReschedule` was set anew (or cleared) after the change `after`, in change order. */
  callbackChanges(accountId: number, clIds: readonly number[], after: number, limit: number): Promise<ListContact[]>;
  /** One contact (soft-deleted ones too), or null. */
  contactById(accountId: number, contactId: number): Promise<ListContact | null>;
  /** Contacts by id (soft-deleted ones too), in the transaction `q` when given. */
  contactsByIds(accountId: number, ids: readonly number[], q?: Queryable): Promise<Map<number, ListContact>>;
  /** Contacts of the lists: live and soft-deleted. */
  contactCounts(accountId: number, clIds: readonly number[]): Promise<{ live: number; deleted: number }>;
}
