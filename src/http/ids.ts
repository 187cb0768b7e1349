import { Type } from '@sinclair/typebox';

/**
 * Ids (agent, role, group) are numbers in storage and accepted on the wire as
 * a number or a string of digits (PRODUCT.md §3). `code` is the error code for
 * a malformed value; a missing one is 1000 unless `missingCode` says otherwise.
 */
export function IdSchema(opts: { code?: number; missingCode?: number; description?: string } = {}) {
  return Type.Union([Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.String({ pattern: '^[0-9]{1,15}$' })], {
    description: opts.description ?? 'Id (number, or string of digits)',
    ...(opts.code !== undefined ? { 'x-code': opts.code } : {}),
    ...(opts.missingCode !== undefined ? { 'x-missing-code': opts.missingCode } : {}),
  });
}

/** The numeric value of an id accepted by IdSchema. */
export function toId(value: number | string): number {
  return typeof value === 'number' ? value : Number(value);
}
