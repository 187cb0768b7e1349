import { Readable } from 'node:stream';
import { createReadStream } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import parseRange from 'range-parser';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors/catalogue.js';
import { defineOperation } from '../../http/operation.js';
import { defineSurface } from '../../http/surface.js';
import { DetailReportBody, DetailReportResponse, ListReportsBody, ListReportsResponse } from './callreport.schemas.js';
import type { CallReportService, ReportListInput } from './callreport.service.js';
import { EXPORT_SCHEMA, DIRECTSTREAM_SCHEMA, EXAMPLE_REPORT } from './callreport.openapi.js';
import { SCALAR_FIELDS, type PushReport } from './report.js';

export function callReportOperations({ callReports }: { callReports: CallReportService }) {
  return [
    defineOperation({
      module: 'CallReport',
      name: 'list',
      writes: false,
      summary: 'Finished calls in the push-report shape, newest first, with filters and cursor paging',
      permission: 'analysis.view',
      body: ListReportsBody,
      response: ListReportsResponse,
      errors: [1000, 1001, 1014, 1015, 1047],
      examples: {
        request: { from: '11-24-2026 00:00:00', cType: 'IBD', limit: 1 },
        response: { data: [EXAMPLE_REPORT], nextCursor: 'WzE3NjQwMDAwMDAsImMtMSJd' },
      },
      async handler({ principal, body }) {
        return callReports.list(principal.accountId, body);
      },
    }),
    defineOperation({
      module: 'CallReport',
      name: 'detail',
      writes: false,
      summary: 'One call\'s report; with rType ["rcrd"] also its recordings\' directstream references (rcrdAr)',
      permission: 'analysis.view',
      body: DetailReportBody,
      response: DetailReportResponse,
      errors: [1000, 1012, 1014, 1015, 1047],
      examples: {
        request: { clId: 'c-1', rType: ['rcrd'] },
        response: { data: { ...EXAMPLE_REPORT, rcrdAr: [{ ndId: '#2', rcrd: 'mi5bq0.Q2FsbFJlcG9ydCBleGFtcGxlIHRva2VuIHNpZ25hdHVyZTAx*2026*11*24*c-1.wav' }] } },
      },
      async handler({ principal, body }) {
        const callId = body.clId ?? body.callId;
        if (callId === undefined) throw new AppError(1000, 'Invalid parameter: clId (or callId) is required');
        const rType = body.rType === undefined ? [] : Array.isArray(body.rType) ? body.rType : body.rType.split(',');
        return {
          data: await callReports.detail(
            principal.accountId,
            callId,
            rType.some((t) => t.trim() === 'rcrd'),
          ),
        };
      },
    }),
  ];
}

/** The CSV cell of a scalar report field: null as an empty cell. */
function csvRow(r: PushReport): Array<string | number> {
  return SCALAR_FIELDS.map((f) => {
    const v = r[f];
    return v === null ? '' : (v as string | number);
  });
}

/** The token and the recording's path of a directstream URL, each segment decoded once from the raw URL and checked as it is. */
function directstreamTarget(request: FastifyRequest): { token: string; relative: string } {
  // The raw URL, not Fastify's decoded parameter.
  const raw = (request.raw.url ?? '').split('?')[0]!;
  const tail = raw.slice(raw.toLowerCase().indexOf('/directstream/') + '/directstream/'.length);
  const [token = '', ...encoded] = tail.split('/');
  let segments: string[];
  try {
    segments = encoded.map((s) => decodeURIComponent(s));
  } catch {
    segments = ['..'];
  }
  return { token, relative: segments.join('/') };
}

/**
 * GET /api/v2/CallReport/export (CSV) and GET /api/v2/recording/directstream/…:
 * plain GETs, so a browser link or an `<audio>` element can use them;
 * surfaces (http/surface.ts), admitted like every operation, refusals with
 * their HTTP status. The export takes the credentials from the query or
 * `Authorization`; a recording link is its own credential (a signed token).
 */
export function callReportSurfaces(callReports: CallReportService) {
  const exportCsv = defineSurface({
    method: 'GET',
    url: '/api/v2/CallReport/export',
    module: 'CallReport',
    name: 'export',
    credentials: 'query',
    permission: 'analysis.view',
    httpRefusals: true,
    schema: EXPORT_SCHEMA,
    writes: false,
    input(request: FastifyRequest): ReportListInput {
      const query = (request.query ?? {}) as Record<string, unknown>;
      const input: ReportListInput = {};
      for (const k of ['from', 'to', 'agentId', 'groupId', 'did', 'caller', 'callStatus', 'cType'] as const) {
        if (typeof query[k] === 'string') input[k] = query[k];
      }
      return input;
    },
    async handler({ principal, body, reply }) {
      // Filters are checked before the first byte, so a bad one is an envelope, not a broken CSV.
      const pages = callReports.all(principal.accountId, body);
      let first: IteratorResult<PushReport[]>;
      try {
        first = await pages.next();
      } catch (err) {
        if (err instanceof AppError) throw new AppError(err.code, err.message, 400);
        throw err;
      }
      // Each page becomes its CSV text at once, so its reports die young (never promoted to the old heap), and
      // Readable.from asks for the next page only when the socket has drained: memory is one page, whatever the calls.
      const text = (page: PushReport[]) => stringify(page.map(csvRow), { record_delimiter: '\r\n' });
      async function* chunks() {
        yield stringify([[...SCALAR_FIELDS]], { record_delimiter: '\r\n' });
        if (first.done) return;
        yield text(first.value);
        for await (const page of pages) yield text(page);
      }
      const csv = Readable.from(chunks(), { objectMode: false });
      return reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="call-reports.csv"').send(csv);
    },
  });

  const directstream = defineSurface({
    method: 'GET',
    url: '/api/v2/recording/directstream/*',
    module: 'recording',
    name: 'directstream',
    credentials: 'signed',
    verify: async (request) => {
      const { token, relative } = directstreamTarget(request);
      return callReports.recordingLinkValid(token, relative);
    },
    badLink: 'missing, bad or expired recording token',
    httpRefusals: true,
    schema: DIRECTSTREAM_SCHEMA,
    writes: false,
    input: directstreamTarget,
    async handler({ body, request, reply }) {
      const found = await callReports.recording(body.relative);
      if (found === null) throw new AppError(1012, 'No data found: no such recording', 404);
      reply.header('content-type', found.type).header('accept-ranges', 'bytes').header('cache-control', 'private, max-age=3600');
      const header = request.headers.range;
      if (header === undefined) return reply.header('content-length', found.size).send(createReadStream(found.file));
      const ranges = parseRange(found.size, header, { combine: true });
      // A malformed header, another unit or several ranges: the whole file (RFC 9110 lets a server ignore Range).
      if (ranges === -2 || (ranges !== -1 && (ranges.type !== 'bytes' || ranges.length !== 1))) {
        return reply.header('content-length', found.size).send(createReadStream(found.file));
      }
      if (ranges === -1) {
        reply.header('content-range', `bytes */${found.size}`);
        throw new AppError(1001, 'Invalid data type or value: range not satisfiable', 416);
      }
      const { start, end } = ranges[0]!;
      return reply
        .code(206)
        .header('content-range', `bytes ${start}-${end}/${found.size}`)
        .header('content-length', end - start + 1)
        .send(createReadStream(found.file, { start, end }));
    },
  });
  return [exportCsv, directstream];
}
