/**
 * What a handler returns when its answer is not a plain object of success
 * fields: one tagged value, sent by one function (send-answer.ts). A handler
 * that returns a plain object gets `{status, code, ...fields}` as JSON; the
 * kinds below exist because they were measured to matter (each says why).
 */

/** An answer's `data` as chunks written as they are pulled: never whole in memory (a month of hours by agent, 26 MB). */
export interface DataStream {
  chunks: Iterable<Buffer>;
  /** Called with each chunk once its write completed (its buffer may then be written again: chunk-pool.ts). */
  release?: (chunk: Buffer) => void;
}

/**
 * A service's data already encoded as JSON text, as pieces or as a stream —
 * not an envelope, not HTTP: the analysis counters and the reports' kept
 * days are kept encoded (re-encoding megabytes of counters per request cost
 * more than the whole read: analysis/wire/README.md), so that is their value.
 */
export type EncodedJson = readonly Buffer[] | DataStream;

/** Whether encoded data is a stream (else pieces); `Array.isArray` does not narrow a readonly array. */
export function isDataStream(data: EncodedJson): data is DataStream {
  return !Array.isArray(data);
}

/** A CSV row: flat, or nested one level (`calledBack.at`), as report.csv.ts flattens it. */
export type CsvRow = Record<string, unknown>;

export type AnswerBody =
  /** The whole success envelope as JSON text (a hot lookup writes it without building an object: getInfo). */
  | { kind: 'envelope-text'; text: string }
  /** `data` as encoded JSON: pieces (joined when small, else written one after another) or a stream. */
  | { kind: 'data'; data: EncodedJson }
  /** A frozen view shared by the requests of a second (ViewCache): encoded once, its bytes sent to each. */
  | { kind: 'shared-view'; fields: object }
  /** CSV: a header row and the rows, stringified as they are pulled (async rows: pages read as the socket takes them). */
  | { kind: 'csv'; header: readonly string[]; rows: Iterable<CsvRow> | AsyncIterable<CsvRow> };

export class Answer {
  private constructor(readonly body: AnswerBody) {}

  static envelopeText(text: string): Answer {
    return new Answer({ kind: 'envelope-text', text });
  }

  static data(data: EncodedJson): Answer {
    return new Answer({ kind: 'data', data });
  }

  /**
   * A view many requests are given (a cached live view): encoded once per
   * object. It must be frozen (ViewCache freezes what it keeps), so the bytes
   * sent can never differ from the object: an unfrozen one is refused here.
   */
  static sharedView(fields: object): Answer {
    if (!Object.isFrozen(fields)) throw new Error('Answer.sharedView: the view must be frozen (ViewCache freezes what it keeps)');
    return new Answer({ kind: 'shared-view', fields });
  }

  /** Rows of any object type: each is read by its own fields (csv.ts flattens nested ones). */
  static csv<R extends object>(header: readonly string[], rows: Iterable<R> | AsyncIterable<R>): Answer {
    return new Answer({ kind: 'csv', header, rows: rows as Iterable<CsvRow> | AsyncIterable<CsvRow> });
  }
}
