import { columnTypes, type Migration } from '../migrate.js';

/**
 * Analysis roll-ups (src/modules/analysis/rollup/rollup-batch.ts): additive counters per
 * account × dimension × key × direction × bucket, maintained at ingest.
 * `analysis_hourly` buckets are UTC hours (serve every whole-hour zone);
 * `analysis_daily` buckets are local days (days since 1970-01-01 of the local
 * date) in the zone recorded in `analysis_rollup_state`.
 * gh0..gh10: answered-in-key calls with talk ≤ k seconds (ghost threshold k).
 */
function counterColumns(real: string): string {
  const ints = ['tc', 'ac', 'mc', 'uc', 'ca', 'pm', 'cm', 'fr_uc', 'fr_ca', 'fr_pm', 'fr_cm', 'fr_can'];
  const gh = Array.from({ length: 11 }, (_, k) => `gh${k}`);
  return [...ints, ...gh]
    .map((c) => `  ${c} BIGINT NOT NULL DEFAULT 0,`)
    .concat([`  ring_sum ${real} NOT NULL DEFAULT 0,`, `  hold_sum ${real} NOT NULL DEFAULT 0,`])
    .join('\n');
}

export const migration: Migration = {
  id: '040_analysis_rollups',
  up(d) {
    const t = columnTypes(d);
    const table = (name: string) => `
CREATE TABLE ${name} (
  account_id BIGINT NOT NULL,
  dim TEXT NOT NULL,
  bucket BIGINT NOT NULL,
  k TEXT NOT NULL,
  direction TEXT NOT NULL,
${counterColumns(t.real)}
  PRIMARY KEY (account_id, dim, bucket, k, direction)
);`;
    return `${table('analysis_hourly')}
${table('analysis_daily')}
CREATE TABLE analysis_rollup_state (
  account_id BIGINT PRIMARY KEY,
  timezone TEXT NOT NULL
);
`;
  },
};
