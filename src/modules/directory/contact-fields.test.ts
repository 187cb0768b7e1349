import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDate, parseContactInput, parseDate } from './contact-fields.js';
import { parseProject } from './contact-views.js';

describe('contact dates (dd-mm-YYYY)', () => {
  it('round-trips every real calendar date', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date(Date.UTC(1, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }), (d) => {
        const s = formatDate(Math.floor(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) / 1000));
        expect(parseDate(s)).not.toBeNull();
        expect(formatDate(parseDate(s)!)).toBe(s);
      }),
    );
  });

  it('refuses dates that do not exist or are written otherwise', () => {
    for (const s of ['31-04-2026', '29-02-2100', '00-01-2000', '01-13-2000', '1-1-2000', '2000-01-01', '01/01/2000', '01-01-0000', ' 01-01-2000']) {
      expect(parseDate(s), s).toBeNull();
    }
    expect(parseDate('29-02-2000')).toBe(Date.UTC(2000, 1, 29) / 1000);
  });
});

describe('contact input', () => {
  it('turns an update into a patch of only the supplied fields', () => {
    const patch = parseContactInput({ name: 'A B', company: '', custom_x: 5 }, { totalcalls: '3', vip: 0 }, [], 'update');
    expect(patch).toEqual({ fields: { name: 'A B', company: null, totalCalls: 3, vip: false }, custom: { custom_x: '5' } });
  });

  it('ignores unknown keys and names the failing field', () => {
    expect(parseContactInput({ mobile: 'x' }, undefined, [], 'create')).toEqual({ fields: {}, custom: {} });
    expect(() => parseContactInput({ email: 'a@b' }, undefined, [], 'create')).toThrow(/contactinfo\.email/);
  });

  it('parses project lists', () => {
    expect(parseProject('name, email,,name')).toEqual(['name', 'email']);
    expect(parseProject('ALL')).toBeNull();
    expect(() => parseProject(' , ')).toThrow();
    expect(() => parseProject(5)).toThrow();
  });
});
