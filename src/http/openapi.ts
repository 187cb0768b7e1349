import { Type, type TSchema } from '@sinclair/typebox';
import { ErrorEnvelopeSchema } from './envelope.js';
import { messageOf, type CatalogueModule } from '../errors/catalogue.js';

/*
 * What the OpenAPI document says beyond the schemas that validate: the
 * security schemes, the error answers of an operation (the envelope with the
 * codes it may answer, as an enum with their meanings) and the answers every
 * operation may give with another HTTP status. Used by operation.ts, app.ts
 * and the stream (modules/events/stream.ts).
 */

/**
 * The credentials. OpenAPI has no location for credentials inside a JSON
 * body, where every POST operation reads them (auth/credentials.ts,
 * credentialsFromBody); the `apiKey` schemes name the field and say where
 * it goes. Their `in: query` is literally true only for GET /api/v2/stream
 * (credentialsFromQuery), which also takes `Authorization: Bearer <ssid>`.
 */
export const SECURITY_SCHEMES = {
  ssid: {
    type: 'apiKey',
    in: 'query',
    name: 'ssid',
    description:
      'Session id from `auth/login`. **POST operations read it from the JSON body**, field `ssid` (OpenAPI cannot declare ' +
      'a credential inside a body, so tools that add it to the query string reach only `GET /api/v2/stream`, which reads `?ssid=`). ' +
      'Not together with `userId` + `token` (1000).',
  },
  userId: {
    type: 'apiKey',
    in: 'query',
    name: 'userId',
    description:
      'User id of the token form, sent together with `token` (a token without it: 1002). **POST operations read it from the JSON body**, ' +
      'field `userId`; `GET /api/v2/stream` from the query string.',
  },
  token: {
    type: 'apiKey',
    in: 'query',
    name: 'token',
    description:
      'API or switch token from `auth/token`, sent together with `userId`. **POST operations read it from the JSON body**, field `token`; ' +
      '`GET /api/v2/stream` from the query string.',
  },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: '`Authorization: Bearer` followed by a session id (ssid). Read only by `GET /api/v2/stream`; POST operations ignore the header.',
  },
} as const;

/** The credentials of a POST operation: an ssid, or userId and token together. */
export const BODY_SECURITY: Array<Record<string, string[]>> = [{ ssid: [] }, { userId: [], token: [] }];
/** The stream's: a bearer session id, or the same two forms in the query string. */
export const STREAM_SECURITY: Array<Record<string, string[]>> = [{ bearer: [] }, ...BODY_SECURITY];

/** The ssid shown in examples. */
export const EXAMPLE_SSID = 'k3Vq8ZtR1mXw0bN6yLcP4sJd9fHa2GeU7oTiQ5nEvBw';

/** What a general code means on the wire (PRODUCT.md §3), beyond its catalogue message. */
const GENERAL_NOTES: Record<number, string> = {
  1000: 'a field is missing or of the wrong type, or both credential forms were sent; the message names the field',
  1001: 'a value of the right type that is not allowed (a date, a counter code, a value outside its list)',
  1002: '`token` was sent without `userId`',
  1005: 'not 6 to 15 digits once every non-digit is removed',
  1006: 'no group with that id in the account',
  1010: 'the database is unreachable; answered with HTTP 503',
  1012: 'the record does not exist (or is not live)',
  1014: 'no credentials, or an unknown, expired or revoked session or token',
  1015: "the caller's kind (client, agent, switch) or role may not do this; the message names the permission",
  1043: 'the agent is not logged in',
  1047: 'the body is empty, `{}`, not a JSON object, or malformed JSON',
  413: 'the body is larger than the limit (1 MiB)',
  429: 'more requests this minute than the per-user limit (RATE_LIMIT_PER_MINUTE; per IP address without credentials), or too many credentials that did not resolve from this IP address (AUTH_FAILURES_PER_MINUTE); `Retry-After` says when to try again',
  500: 'an unexpected failure; the message never carries internal detail',
};

/** `code: meaning` of a code as `module`'s table reads it. */
export function codeMeaning(code: number, module: CatalogueModule): string {
  const base = code === 413 ? 'Request body too large' : code === 429 ? 'Too many requests' : code === 500 ? 'Internal server error' : messageOf(code, module);
  const note = code < 1500 ? GENERAL_NOTES[code] : undefined;
  return note ? `${base}: ${note}` : base;
}

/** An operation's own note on a code; alone when the code is not in the module's table (the operation says what it answers). */
function withNote(code: number, module: CatalogueModule, note: string): string {
  const base = messageOf(code, module);
  return base === 'Error' ? note : `${base}: ${note}`;
}

/**
 * The error envelope with `code` narrowed to `codes`: an enum whose values
 * are described (`x-enumDescriptions`, and as a list in the description).
 * Documentation only: never compiled into a check.
 */
export function errorAnswerSchema(codes: readonly number[], module: CatalogueModule, title: string, notes: Partial<Record<number, string>> = {}): TSchema {
  const meanings = Object.fromEntries(codes.map((c) => [String(c), notes[c] ? withNote(c, module, notes[c]) : codeMeaning(c, module)]));
  return Type.Unsafe({
    title,
    allOf: [Type.Ref(ErrorEnvelopeSchema)],
    type: 'object',
    required: ['code'],
    properties: {
      code: {
        type: 'integer',
        enum: [...codes],
        'x-enumDescriptions': meanings,
        description: codes.map((c) => `- \`${c}\`: ${meanings[String(c)]}`).join('\n'),
      },
    },
  });
}

/** The answers with an HTTP status other than 200 that any operation may give, by status: name in components.responses, code, meaning. */
const SHARED_RESPONSES: Record<number, { name: string; code: number; description: string }> = {
  413: { name: 'PayloadTooLarge', code: 413, description: 'The body is larger than the limit (1 MiB); code 413.' },
  429: {
    name: 'TooManyRequests',
    code: 429,
    description: 'Rate limited: more requests this minute than the per-credential limit; code 429. Retry after the minute.',
  },
  500: { name: 'InternalError', code: 500, description: 'Unexpected failure; code 500. The message never carries internal detail.' },
  503: { name: 'DatabaseUnavailable', code: 1010, description: 'The database is unreachable; code 1010. The service recovers by itself once it is back.' },
};

/**
 * Answers of every operation with an HTTP status other than 200, each in the
 * error envelope, for a route's `response` (documentation only: the app's
 * serializer does not read schemas). shareResponses turns them into
 * references to components.responses.
 */
export function httpErrorResponses(statuses: readonly number[] = [413, 429, 500, 503]): Record<number, TSchema> {
  return Object.fromEntries(
    statuses.map((status) => {
      const { code, description } = SHARED_RESPONSES[status]!;
      const schema = Type.Unsafe({
        ...errorAnswerSchema([code], 'general', `HTTP ${status}`),
        'x-response-description': description,
        examples: [{ status: 'error', code, message: messageFor(code) }],
      });
      return [status, schema];
    }),
  );
}

interface ResponseObject {
  description?: string;
  content?: unknown;
  $ref?: string;
}

/**
 * fastify-swagger writes every route's responses in full; the answers of
 * httpErrorResponses are the same on every operation, so the document keeps
 * one of each in components.responses and the operations refer to it.
 */
/**
 * A Fastify wildcard route (`/recording/directstream/*`) is documented by the
 * plugin as `{*}` with a path parameter named `*`, which OpenAPI tools refuse
 * (a template name must be a word): it is named `path` instead.
 */
export function nameWildcards<D extends object>(doc: D): D {
  const { paths } = doc as { paths?: Record<string, Record<string, { parameters?: Array<{ in?: string; name?: string }> }>> };
  if (!paths) return doc;
  const renamed: typeof paths = {};
  for (const [key, item] of Object.entries(paths)) {
    if (!key.endsWith('/{*}')) {
      renamed[key] = item;
      continue;
    }
    for (const op of Object.values(item)) for (const p of op.parameters ?? []) if (p.in === 'path' && p.name === '*') p.name = 'path';
    renamed[key.replace(/\{\*\}$/, '{path}')] = item;
  }
  return { ...doc, paths: renamed };
}

export function shareResponses<D extends object>(doc: D): D {
  const { paths, components: given } = doc as { paths?: Record<string, Record<string, { responses?: Record<string, ResponseObject> }>>; components?: object };
  const shared: Record<string, ResponseObject> = {};
  for (const item of Object.values(paths ?? {})) {
    for (const op of Object.values(item)) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const known = SHARED_RESPONSES[Number(status)];
        if (!known || response.description !== known.description) continue;
        shared[known.name] ??= response;
        op.responses![status] = { $ref: `#/components/responses/${known.name}` };
      }
    }
  }
  const components = (given ?? {}) as { responses?: Record<string, ResponseObject> };
  components.responses = { ...components.responses, ...shared };
  return { ...doc, components };
}

function messageFor(code: number): string {
  if (code === 413) return 'Request body too large (limit 1 MiB)';
  if (code === 429) return 'Too many requests: at most 600000 a minute per credential';
  if (code === 500) return 'Internal server error';
  return messageOf(code);
}
