import type { FastifyInstance } from 'fastify';
import sjson from 'secure-json-parse';
import { fail } from '../errors/catalogue.js';

/** True when a string (or key) anywhere in the value holds U+0000. */
function hasNul(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('\u0000');
  if (Array.isArray(v)) return v.some(hasNul);
  if (v && typeof v === 'object') return Object.entries(v).some(([k, x]) => k.includes('\u0000') || hasNul(x));
  return false;
}

/**
 * Every POST body is read as JSON whatever its content type (integrations
 * often send text/plain); an empty body becomes undefined, which the
 * operation answers with 1047, and malformed JSON is 1047 as well.
 */
export function installBodyParsing(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const parse = (_req: unknown, text: string, done: (err: Error | null, body?: unknown) => void) => {
    if (text.trim() === '') return done(null, undefined);
    try {
      // __proto__ / constructor keys are dropped so no merge can pollute a prototype.
      const body: unknown = sjson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
      // PostgreSQL cannot store U+0000 in text (SQLite can): refuse it alike on both, before any work.
      if (/\\u0000/i.test(text) && hasNul(body)) return done(fail(1000, 'text must not contain the NUL character (\\u0000)'));
      done(null, body);
    } catch (err) {
      done(err as Error);
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parse);
  app.addContentTypeParser('*', { parseAs: 'string' }, parse);
}
