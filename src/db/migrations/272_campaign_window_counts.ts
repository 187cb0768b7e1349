import type { Migration } from '../migrate.js';

/**
 * The abandon window's counters (PRODUCT.md §13: the abandon rate over a
 * predictive campaign's rolling 30 days or 24 hours; modules/campaign/
 * abandon-window.repository.ts): per campaign, UTC hour (`span` 3600) and
 * UTC day (`span` 86400) of the dial, the people who answered and the
 * abandoned calls. The dialer's tick read every dial of the window to count
 * them (20,880 rows a tick on PostgreSQL with 20 predictive campaigns);
 * now it sums the whole days and hours inside the window and reads only the
 * dials of the hour its start falls in.
 *
 * `campaign_calls.counted` is what the counters hold of the dial (1: a person
 * answered, 2: abandoned; both 3), kept equal to the dial's answer and
 * outcome by the one code that changes them, in the same transaction: a
 * change adds the difference to the counters and sets `counted` anew.
 * Filled here from the dials there are, and the counters from them.
 */
export const migration: Migration = {
  id: '272_campaign_window_counts',
  up() {
    return `ALTER TABLE campaign_calls ADD COLUMN counted INTEGER NOT NULL DEFAULT 0;
UPDATE campaign_calls SET counted = CASE WHEN answered_by = 'human' OR (outcome = 'abandoned' AND answered_by IS NULL) THEN 1 ELSE 0 END + CASE WHEN outcome = 'abandoned' THEN 2 ELSE 0 END
 WHERE answered_by = 'human' OR outcome = 'abandoned';
CREATE TABLE campaign_window_counts (
  account_id BIGINT NOT NULL,
  campaign_id BIGINT NOT NULL,
  span INTEGER NOT NULL,
  bucket BIGINT NOT NULL,
  human BIGINT NOT NULL DEFAULT 0,
  abandoned BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, campaign_id, span, bucket)
);
INSERT INTO campaign_window_counts (account_id, campaign_id, span, bucket, human, abandoned)
SELECT c.account_id, c.campaign_id, s.span, c.dialled_at / s.span * s.span, SUM(c.counted % 2), SUM(c.counted / 2)
FROM campaign_calls c CROSS JOIN (SELECT 3600 AS span UNION ALL SELECT 86400) s
WHERE c.counted <> 0
GROUP BY c.account_id, c.campaign_id, s.span, c.dialled_at / s.span * s.span;`;
  },
};
