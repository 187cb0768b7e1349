import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/**
 * axe-core's browser bundle. It is evaluated through the DevTools protocol,
 * which the page's Content-Security-Policy (script-src 'self') does not
 * govern, so the page is checked with its real policy in force.
 */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Moderate findings that were fixed (issue 19): they fail the check as well, so they stay fixed. */
const FIXED_MODERATE = new Set(['landmark-one-main', 'aria-prohibited-attr', 'region']);

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

/**
 * Runs axe-core (its default rules: WCAG 2.x A and AA, and best practices) on the page
 * as it is now and answers every violation. Hidden parts (the other view, a
 * closed dialog) are not checked, as axe skips what is not rendered.
 */
export async function runAxe(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
}

/** The violations a release may not have: impact serious or critical, and the moderate ones fixed before. */
export function blocking(violations: AxeViolation[]): AxeViolation[] {
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical' || FIXED_MODERATE.has(v.id));
}

/** One line per violation and up to three of its elements, for a failure message. */
export function describeViolations(violations: AxeViolation[]): string {
  return violations
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help}\n${v.nodes
          .slice(0, 3)
          .map((n) => `  ${n.target.join(' ')} — ${(n.failureSummary ?? '').replace(/\s+/g, ' ')}`)
          .join('\n')}`,
    )
    .join('\n');
}
