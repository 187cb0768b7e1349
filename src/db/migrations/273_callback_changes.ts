import type { Migration } from '../migrate.js';

/**
 * List callbacks (`campaignReschedule`) honoured once per campaign, read as
 * changes (modules/campaign/dialer.ts, docs/campaigns.md): the dialer read
 * every due callback of the lists each tick, earliest first with a limit,
 * and one attempt row per callback and campaign; callbacks no campaign
 * could dial (a contact done, out of attempts) stayed due for ever, cost a
 * read each every tick and, once more than the limit, hid newer ones.
 *
 * - `list_contacts.callback_seq`: taken from the account's
 *   `contact_list_ids.next_callback_seq` (under that row's lock, so they
 *   commit in order) whenever a contact's `reschedule_at` is written with a
 *   new value; the dialer reads the changes after the last it applied.
 * - `campaign_contacts.callback_at`: the list callback the campaign has yet
 *   to honour (NULL: none); `callback_seq` the list change it holds (a
 *   change is applied once). `campaigns.callback_seq`: the last list change
 *   the campaign read (NULL until its first tick).
 *
 * Filled from the callbacks the lists hold: each campaign honours them once
 * (a callback dialled was cleared from the list; one still there was not
 * dialled by that campaign, or could not be).
 */
export const migration: Migration = {
  id: '273_callback_changes',
  up() {
    return `ALTER TABLE contact_list_ids ADD COLUMN next_callback_seq BIGINT NOT NULL DEFAULT 1;
ALTER TABLE list_contacts ADD COLUMN callback_seq BIGINT NOT NULL DEFAULT 0;
CREATE INDEX list_contacts_callback_changes ON list_contacts (account_id, callback_seq) WHERE callback_seq > 0;
DROP INDEX list_contacts_callbacks;
ALTER TABLE campaign_contacts ADD COLUMN callback_at BIGINT;
ALTER TABLE campaign_contacts ADD COLUMN callback_seq BIGINT NOT NULL DEFAULT 0;
CREATE INDEX campaign_contacts_callbacks ON campaign_contacts (account_id, campaign_id, callback_at) WHERE callback_at IS NOT NULL;
ALTER TABLE campaigns ADD COLUMN callback_seq BIGINT;
UPDATE campaign_contacts SET callback_at = (
  SELECT l.reschedule_at FROM list_contacts l WHERE l.account_id = campaign_contacts.account_id AND l.contact_id = campaign_contacts.contact_id)
 WHERE EXISTS (SELECT 1 FROM list_contacts l
  WHERE l.account_id = campaign_contacts.account_id AND l.contact_id = campaign_contacts.contact_id AND l.reschedule_at IS NOT NULL);`;
  },
};
