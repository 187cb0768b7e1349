import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors/catalogue.js';
import { STREAM_SECURITY, errorAnswerSchema } from '../../http/openapi.js';
import type { AuditRecorder, Operation, OperationContext } from '../../http/operation.js';
import { defineSurface } from '../../http/surface.js';
import { csvContactBatches, type CsvRejection } from './contact-csv.js';
import type { ContactListService } from './contactlist.service.js';

const PATH = '/api/v2/contactList/importCsv';
/** Rows written per transaction (and per audit record): contactList/import's limit, so a batch is one import's worth. */
export const CSV_BATCH_ROWS = 10_000;
/** How many rejections the answer lists (the first, by row); `rejectedCount` counts them all. */
export const CSV_LISTED_REJECTIONS = 100;

/** How the audit trail names each batch: contactList/importCsv on the list, with the batch's counts. */
const AUDITED = {
  module: 'contactList',
  name: 'importCsv',
  writes: true,
  audit: {
    target: 'contactList',
    id: ({ body }: { body: { clId: number } }) => body.clId,
    changes: ({ result }: { result?: object }) => {
      const { added, updated } = result as { added: number; updated: number };
      return { added: [null, added], updated: [null, updated] };
    },
  },
} as unknown as Operation;

const envelope = (http: number, code: number, description: string, message: string) => ({
  description,
  content: { 'application/json': { schema: errorAnswerSchema([code], 'general', `HTTP ${http}`), example: { status: 'error', code, message } } },
});

const SCHEMA = {
  tags: ['contactList'],
  operationId: 'contactList_importCsv',
  summary: 'Add or update the contacts of a CSV file, streamed (a million rows in well under a minute); a bad row is rejected alone',
  description:
    'The body is the CSV (`text/csv`, UTF-8, RFC 4180; header row: `number`, optional `name` and `timezone`, every other column a field). ' +
    'Rows are written as `contactList/import` writes records, 10,000 to a transaction, as the body arrives. Credentials as for ' +
    '`CallReport/export`: `Authorization: Bearer` with a session id, or `?ssid=`, or `?userId=` and `?token=`. Permission `campaign.manage`. ' +
    `The answer lists the first ${CSV_LISTED_REJECTIONS} rejected rows (0-based \`index\` among the data rows, 1-based \`line\`) and counts them all.`,
  security: STREAM_SECURITY,
  consumes: ['text/csv'],
  querystring: {
    type: 'object',
    required: ['clId'],
    properties: { clId: { type: 'string', description: 'The contact list' }, ssid: { type: 'string' }, userId: { type: 'string' }, token: { type: 'string' } },
  },
  body: {
    type: 'string',
    description: 'The CSV',
    examples: ['number,name,timezone,plan\r\n+1 415 555 0134,Ada Lovelace,America/Los_Angeles,gold\r\n12,Too short,,\r\n14155550135,Alan Turing,,silver\r\n'],
  },
  response: {
    200: {
      description: 'What was written',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['status', 'code', 'data'],
            properties: {
              status: { type: 'string', enum: ['success'] },
              code: { type: 'integer', enum: [200] },
              data: {
                type: 'object',
                required: ['rows', 'added', 'updated', 'rejectedCount', 'rejected'],
                properties: {
                  rows: { type: 'integer', description: 'Data rows read (the header not counted)' },
                  added: { type: 'integer' },
                  updated: { type: 'integer' },
                  rejectedCount: { type: 'integer' },
                  rejected: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['index', 'line', 'code', 'message'],
                      properties: { index: { type: 'integer' }, line: { type: 'integer' }, code: { type: 'integer' }, message: { type: 'string' } },
                    },
                  },
                },
              },
            },
          },
          example: {
            status: 'success',
            code: 200,
            data: { rows: 3, added: 2, updated: 0, rejectedCount: 1, rejected: [{ index: 1, line: 3, code: 1005, message: 'Invalid contact number' }] },
          },
        },
      },
    },
    400: envelope(400, 1000, 'No such list (1012), or a header row without `number` (1000)', 'Invalid parameter: the header row must name a "number" column'),
    401: envelope(401, 1014, 'No valid credentials; code 1014.', 'Invalid token'),
    403: envelope(403, 1015, 'Missing permission campaign.manage', 'Permission denied: missing permission campaign.manage'),
  },
};

/** Keeps the `limit` rejections of the lowest rows, whatever order they arrive in (parse errors come before the batch they sit in is checked). */
class FirstRejections {
  readonly kept: CsvRejection[] = [];
  count = 0;
  constructor(private readonly limit: number) {}
  add(r: CsvRejection): void {
    this.count++;
    this.kept.push(r);
    if (this.kept.length > 2 * this.limit) this.trim();
  }
  trim(): CsvRejection[] {
    this.kept.sort((a, b) => a.index - b.index);
    this.kept.length = Math.min(this.kept.length, this.limit);
    return this.kept;
  }
}

/**
 * `POST /api/v2/contactList/importCsv?clId=N` (PRODUCT.md §13), a surface
 * (http/surface.ts) admitted as `CallReport/export` is: credentials from
 * the query or `Authorization: Bearer`, checked before a byte of the body
 * is read; `rawBody`, so the body is the request's stream, parsed by
 * csv-parse as it arrives and written in batches (memory holds one batch).
 *
 * Each batch is its own transaction with its own audit record (through the
 * same recorder as every change, `audit`), not one transaction for the
 * file: a million rows in one would hold the embedded database's one
 * connection, and with it every other request, for the whole upload. A
 * failure part-way keeps the batches before it; sending the file again
 * updates them.
 */
export function contactListCsvSurface(contactLists: ContactListService, audit: AuditRecorder) {
  return defineSurface({
    method: 'POST',
    url: PATH,
    module: 'contactList',
    name: 'importCsv',
    credentials: 'query',
    permission: 'campaign.manage',
    httpRefusals: true,
    rawBody: true,
    schema: SCHEMA,
    writes: true,
    audit: { exempt: 'each batch of rows is recorded in its own transaction, as contactList/importCsv on the list (contactlist.csv-route.ts)' },
    input(request: FastifyRequest): { clId: number } {
      const clId = (request.query as { clId?: unknown } | undefined)?.clId;
      if (typeof clId !== 'string' || !/^[0-9]{1,15}$/.test(clId) || Number(clId) < 1)
        throw new AppError(1012, 'No data found: clId names no contact list', 400);
      return { clId: Number(clId) };
    },
    async handler(ctx) {
      const { principal, body, request } = ctx;
      const { clId } = body;
      const rejections = new FirstRejections(CSV_LISTED_REJECTIONS);
      // rows: every data row, those the parser could not read (skipped) included.
      const totals = { rows: 0, skipped: 0, added: 0, updated: 0 };
      try {
        await contactLists.requireList(principal.accountId, clId);
        const stream = request.body as Readable | undefined;
        if (!stream) throw new AppError(1000, 'Invalid parameter: the body must be the CSV file');
        for await (const batch of csvContactBatches(stream, CSV_BATCH_ROWS, (r) => (totals.skipped++, rejections.add(r)))) {
          const items = batch.map((row) => ({ index: row.index, raw: row.raw }));
          const result = await audit.record(AUDITED, ctx as unknown as OperationContext<unknown>, () =>
            contactLists.importIndexed(principal.accountId, clId, items),
          );
          totals.rows += batch.length;
          totals.added += result.added;
          totals.updated += result.updated;
          if (result.rejected.length > 0) {
            const lines = new Map(batch.map((row) => [row.index, row.line]));
            for (const r of result.rejected) rejections.add({ ...r, line: lines.get(r.index) ?? 0 });
          }
        }
      } catch (err) {
        // As the export answers a bad filter: the code and message, with HTTP 400.
        if (err instanceof AppError && err.httpStatus === 200) throw new AppError(err.code, err.message, 400);
        throw err;
      }
      return {
        status: 'success',
        code: 200,
        data: {
          rows: totals.rows + totals.skipped,
          added: totals.added,
          updated: totals.updated,
          rejectedCount: rejections.count,
          rejected: rejections.trim(),
        },
      };
    },
  });
}
