import v8 from 'node:v8';

/**
 * V8 lets the old generation grow to this many percent over the live heap of
 * the last full collection before it collects again (its own default picks up
 * to 300 % when the program allocates fast, and the memory is only returned
 * later). Measured on the CSV export of 200,000 calls (docs/crm-integration.md
 * §6): RSS growth 91 MiB with V8's default, 17 MiB with 50, at the same
 * rows/s. The growth was short-lived rows promoted out of the young
 * generation, not retained ones: only the collection's timing changes.
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * Sets V8's heap growing factor for the server process, unless the operator
 * chose one on node's command line (`node --heap-growing-percent=0
 * bin/callcenter.js serve` gives V8's own back; NODE_OPTIONS does not accept
 * this flag). Unlike the young generation's size (`--max-semi-space-size`,
 * read once when the heap is set up), this flag is read at every collection,
 * so setting it at start-up holds.
 */
export function boundHeapGrowth(): void {
  if (process.execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) return;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
