import { fail } from '../errors/catalogue.js';

/**
 * A contact number as the wire sends it (string or number) reduced to its
 * digits: `+91 98765-43210` → `919876543210`. 6 to 15 digits must remain,
 * else 1005 (PRODUCT.md §3).
 */
export function normaliseContact(value: unknown, field = 'contact'): string {
  const digits = contactDigits(value);
  if (digits === null) throw fail(1005, `${field} must have 6 to 15 digits`);
  return digits;
}

/** The digits of a contact number, or null when it is not one. */
export function contactDigits(value: unknown): string | null {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) return null;
    value = String(value);
  }
  if (typeof value !== 'string' || value.length > 64) return null;
  const digits = value.replace(/\D/g, '');
  return digits.length >= 6 && digits.length <= 15 ? digits : null;
}
