import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * The abandon window's counters are right only while every change of a
 * dial's answer or outcome goes through DialerRepository.changeDial, which
 * moves the counters in the same transaction. This reads the service's
 * source and fails on any other statement that writes them: a new writer
 * must go through changeDial (or recount), not around it.
 */

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CHANGE_DIAL = 'src/modules/campaign/dialer.repository.ts';
const WINDOW = 'src/modules/campaign/abandon-window.repository.ts';

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'migrations' ? [] : sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const files = sources(SRC).map((p) => ({ file: path.relative(path.dirname(SRC), p), text: fs.readFileSync(p, 'utf8') }));

describe('the abandon window has one writer', () => {
  it('no statement but changeDial sets a dial’s answer, outcome or counted; no insert writes them', () => {
    const found: string[] = [];
    for (const { file, text } of files) {
      for (const m of text.matchAll(/UPDATE\s+campaign_calls\s+SET\s+([\s\S]*?)(?:\bWHERE\b|`)/g)) {
        const set = m[1]!;
        const owner = (file === CHANGE_DIAL && set.startsWith('${set}')) || (file === WINDOW && /^counted = /.test(set.trim()));
        if (owner) continue;
        if (/\$\{/.test(set) || /\b(answered_by|outcome|counted)\s*=/.test(set)) found.push(`${file}: UPDATE campaign_calls SET ${set.trim().slice(0, 60)}`);
      }
      for (const m of text.matchAll(/INSERT\s+INTO\s+campaign_calls\s*\(([^)]*)\)/g))
        if (/\b(answered_by|outcome|counted)\b/.test(m[1]!)) found.push(`${file}: INSERT INTO campaign_calls (${m[1]!.slice(0, 60)})`);
      if (file !== WINDOW && /(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+campaign_window_counts\b/.test(text)) found.push(`${file}: writes campaign_window_counts`);
    }
    expect(found).toEqual([]);
  });

  it('the scan sees the writers it guards', () => {
    const owner = files.find((f) => f.file === CHANGE_DIAL)!.text;
    expect(owner).toMatch(/UPDATE campaign_calls SET \$\{set\}/);
    expect(files.filter((f) => /UPDATE\s+campaign_calls\s+SET/.test(f.text)).length).toBeGreaterThanOrEqual(3);
  });
});
