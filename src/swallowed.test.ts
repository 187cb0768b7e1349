import { describe, expect, it } from 'vitest';
import { logSwallowedTo, noteSwallowed, SWALLOW_SITES, swallowed, swallowedCounts } from './swallowed.js';

describe('swallowed errors', () => {
  it('are logged with their site and counted, never dropped silently', async () => {
    const lines: Array<{ obj: object; msg: string }> = [];
    logSwallowedTo({ warn: (obj, msg) => lines.push({ obj, msg }) });
    const before = swallowedCounts().get('lock.release')!;
    await Promise.reject(new Error('connection reset')).catch(swallowed('lock.release'));
    noteSwallowed('lock.release', 'not an Error');
    expect(swallowedCounts().get('lock.release')).toBe(before + 2);
    expect(lines).toEqual([
      { obj: { site: 'lock.release', err: 'Error: connection reset' }, msg: 'error swallowed' },
      { obj: { site: 'lock.release', err: 'not an Error' }, msg: 'error swallowed' },
    ]);
  });

  it('a logger that throws does not lose the count', () => {
    logSwallowedTo({
      warn: () => {
        throw new Error('log sink gone');
      },
    });
    const before = swallowedCounts().get('job.stop')!;
    expect(() => noteSwallowed('job.stop', new Error('x'))).not.toThrow();
    expect(swallowedCounts().get('job.stop')).toBe(before + 1);
  });

  it('every site is counted from the start, so each series exists at 0', () => {
    expect([...swallowedCounts().keys()].sort()).toEqual([...SWALLOW_SITES].sort());
  });
});
