import { Type, type TSchema } from '@sinclair/typebox';

export interface ErrorEnvelope {
  status: 'error';
  code: number;
  message: string;
}

export function errorEnvelope(code: number, message: string): ErrorEnvelope {
  return { status: 'error', code, message };
}

/** `{status: "success", code: 200, …fields}`: the success envelope of every operation. */
export function successEnvelope<T extends object>(fields: T): { status: 'success'; code: 200 } & T {
  return { status: 'success', code: 200, ...fields };
}

/**
 * An answer may carry its whole success envelope as UTF-8 JSON under this
 * symbol: one buffer, which the app's serializer (app.ts) sends as it is, or
 * pieces, which the operation writes one after another (operation.ts), or a
 * string (a small answer written as text: preserializedJson). Cached live
 * views use it so tens of kilobytes are not serialised and encoded again on
 * every request; analysis/hits writes megabytes of counters as text without
 * building objects first. Object spread (successEnvelope) copies
 * symbol-keyed properties; JSON.stringify and the schema checks ignore them.
 */
export const PRESERIALIZED = Symbol.for('callcenter.preserialized-json');

/** Marks an answer that is not JSON (a CSV report): operation.ts sends `body` as it is with `contentType`. */
export const RAW_ANSWER = Symbol.for('callcenter.raw-answer');

export function rawAnswer(contentType: string, body: string): { data: Record<string, never> } {
  const fields = { data: {} };
  (fields as Record<symbol, { contentType: string; body: string }>)[RAW_ANSWER] = { contentType, body };
  return fields;
}

/**
 * A success answer whose whole envelope `json` the operation wrote as text
 * (a hot lookup: getInfo), sent as it is: no answer object is built and
 * serialised. The object has no fields of its own: the text is the answer
 * (the response schema check in tests parses it, operation.ts).
 */
export function preserializedJson(json: string): Record<string, never> {
  const fields = {};
  (fields as Record<symbol, string>)[PRESERIALIZED] = json;
  return fields;
}

export function withPreserialized<T extends object>(fields: T): T {
  (fields as Record<symbol, Buffer>)[PRESERIALIZED] = Buffer.from(JSON.stringify({ status: 'success', code: 200, ...fields }));
  return fields;
}

/**
 * An answer's whole envelope as chunks written only as they are pulled:
 * operation.ts sends them as a stream, with back-pressure, so a large answer
 * (a month of hours by agent, 26 MB) never exists whole in memory.
 */
export class StreamedAnswer implements DataStream {
  constructor(
    readonly chunks: Iterable<Buffer>,
    readonly release?: (chunk: Buffer) => void,
  ) {}
}

/** An answer's `data` as chunks written as they are pulled (see StreamedAnswer). */
export interface DataStream {
  chunks: Iterable<Buffer>;
  /** Called with each chunk once it has been sent (its buffer may then be written again). */
  release?: (chunk: Buffer) => void;
}

function* enveloped(data: Iterable<Buffer>): Generator<Buffer, void, undefined> {
  yield DATA_PREFIX;
  yield* data;
  yield CLOSE;
}

/** Answers larger than this are sent as their pieces (operation.ts), not joined into one buffer first. */
const JOIN_UP_TO = 256 * 1024;

/**
 * A success answer `{status, code, data}` whose `data` is already encoded
 * JSON, given as pieces to send one after another. The object's own `data`
 * is empty: the bytes are the answer (the response schema check in tests
 * parses the bytes, operation.ts). A small answer is joined into one buffer;
 * a large one stays in pieces (why: analysis/wire/hits-json.ts, joinFragments).
 * `data` given as a DataStream is sent as it is pulled (StreamedAnswer).
 */
export function preserializedData(pieces: readonly Buffer[] | DataStream): { data: Record<string, never> } {
  const fields = { data: {} };
  if (!Array.isArray(pieces)) {
    const stream = pieces as DataStream;
    (fields as Record<symbol, StreamedAnswer>)[PRESERIALIZED] = new StreamedAnswer(enveloped(stream.chunks), stream.release);
    return fields;
  }
  const all = [DATA_PREFIX, ...pieces, CLOSE];
  const size = all.reduce((n, p) => n + p.length, 0);
  (fields as Record<symbol, Buffer | Buffer[]>)[PRESERIALIZED] = size <= JOIN_UP_TO ? Buffer.concat(all, size) : all;
  return fields;
}

const DATA_PREFIX = Buffer.from('{"status":"success","code":200,"data":');
const CLOSE = Buffer.from('}');

export const ErrorEnvelopeSchema = Type.Object(
  {
    status: Type.Literal('error'),
    code: Type.Integer({ description: 'Error code from the catalogue' }),
    message: Type.String(),
  },
  { $id: 'ErrorEnvelope', title: 'Error envelope' },
);

/** A success body schema: the envelope's status and code plus `fields`. */
export function SuccessSchema<P extends Record<string, TSchema>>(fields: P, description?: string) {
  return Type.Object({ status: Type.Literal('success'), code: Type.Literal(200), ...fields }, { additionalProperties: false, description });
}
