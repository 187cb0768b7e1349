import { describe, expect, it } from 'vitest';
import { JsonBytes } from './json-bytes.js';

describe('JsonBytes', () => {
  it('writes every number as JSON.stringify does', () => {
    const values = [0, 1, 9, 10, 99, 100, 12345, -1, -10, -0, 3.33, 0.1 + 0.2, 1e21, 2 ** 53 - 1, 2 ** 53 + 2, -(2 ** 53 - 1), NaN, Infinity, null];
    for (let i = 0; i < 2000; i++) values.push(Math.floor(Math.random() * 10 ** (1 + (i % 15))));
    // Averages rounded to hundredths (written digit by digit), and fractions that are not hundredths.
    for (let i = 0; i < 20_000; i++) values.push(Math.round(Math.random() * 10 ** (1 + (i % 10))) / 100);
    values.push(0.01, 0.1, 0.05, 0.5, 1.01, 1.1, 1.5, 99.99, 21_474_835.99, 21_474_836.01, 1 / 3, 2 / 3, 0.005, 12.345, 1e-7, 5e-324);
    const out = new JsonBytes(8); // small on purpose: it must grow
    out.ascii('[');
    values.forEach((v, i) => out.ascii(i === 0 ? '' : ',').number(v));
    out.ascii(']');
    expect(out.bytes().toString()).toBe(JSON.stringify(values));
  });

  it('escapes strings and encodes them as UTF-8', () => {
    const out = new JsonBytes(4).ascii('{').string('näme "q" \\ \n \u2028 😀').ascii(':1}');
    expect(JSON.parse(out.bytes().toString('utf8'))).toEqual({ 'näme "q" \\ \n \u2028 😀': 1 });
  });
});
