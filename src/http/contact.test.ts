import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/catalogue.js';
import { contactDigits, normaliseContact } from './contact.js';

describe('normaliseContact', () => {
  it('keeps only digits', () => {
    expect(normaliseContact('+91 98765-43210')).toBe('919876543210');
    expect(normaliseContact('(022) 555.1234')).toBe('0225551234');
  });
  it('accepts numbers', () => {
    expect(normaliseContact(9876543210)).toBe('9876543210');
  });
  it('refuses fewer than 6 or more than 15 digits with 1005', () => {
    expect(() => normaliseContact('12345')).toThrow(AppError);
    expect(contactDigits('1234567890123456')).toBeNull();
    expect(contactDigits('123456')).toBe('123456');
    expect(contactDigits('123456789012345')).toBe('123456789012345');
    try {
      normaliseContact('abc');
    } catch (e) {
      expect((e as AppError).code).toBe(1005);
    }
  });
  it('refuses other types and unsafe numbers', () => {
    for (const v of [null, undefined, true, {}, [], 1.5, -123456, 2 ** 60]) expect(contactDigits(v)).toBeNull();
  });
});
