import { columnTypes, type Migration } from '../migrate.js';

/**
 * The analysis cube (src/modules/analysis/rollup/rollup-batch.ts): additive counters per
 * local day × agent (0 = the call itself) × group (-1 none) × DID ('' none) ×
 * campaign ('' none) × direction. It answers the filter combinations the
 * per-dimension roll-ups cannot (e.g. breakdown by agent filtered by DID).
 */
export const migration: Migration = {
  id: '042_analysis_cube',
  up(d) {
    const t = columnTypes(d);
    const ints = ['tc', 'ac', 'mc', 'uc', 'ca', 'pm', 'cm', 'fr_uc', 'fr_ca', 'fr_pm', 'fr_cm', 'fr_can', ...Array.from({ length: 11 }, (_, k) => `gh${k}`)];
    return `
CREATE TABLE analysis_cube (
  account_id BIGINT NOT NULL,
  bucket BIGINT NOT NULL,
  agent_id BIGINT NOT NULL,
  group_id BIGINT NOT NULL,
  did TEXT NOT NULL,
  campaign_id TEXT NOT NULL,
  direction TEXT NOT NULL,
${ints.map((c) => `  ${c} BIGINT NOT NULL DEFAULT 0,`).join('\n')}
  ring_sum ${t.real} NOT NULL DEFAULT 0,
  hold_sum ${t.real} NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, bucket, agent_id, group_id, did, campaign_id, direction)
);
`;
  },
};
