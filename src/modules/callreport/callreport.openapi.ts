import { STREAM_SECURITY, errorAnswerSchema } from '../../http/openapi.js';
import type { PushReport } from './report.js';

/** The documentation's example report: an inbound call missed by one agent, answered by the next, with a hold and a recording. */
export const EXAMPLE_REPORT: PushReport = {
  callId: 'c-1',
  callStatus: 3,
  cType: 'IBD',
  DID: '18005550100',
  campId: 0,
  userId: '5',
  cNumber: '919800000003',
  ivrSTime: '2026-11-24 21:30:00',
  ivrETime: '2026-11-24 21:31:40',
  firstAnswerTime: '2026-11-24 21:30:20',
  lastHangupTime: '2026-11-24 21:31:40',
  ivrDuration: 100,
  talkDuration: 68,
  totalHoldDuration: 12,
  masterAgent: 12,
  masterAgentNumber: '9555000012',
  masterGroupId: 7,
  firstAttended: 'agent',
  recordings: [{ nodeid: '#2', file: '2026/11/24/c-1.wav', time: '2026-11-24 21:31:40' }],
  nHDetail: [
    {
      nodeId: '#1',
      agentId: 11,
      number: '9555000011',
      groupId: 7,
      status: 'missed',
      totalRingDuration: 10,
      talkDuration: 0,
      totalHoldDuration: 0,
      answerSTime: null,
      answerETime: null,
      recording: null,
    },
    {
      nodeId: '#2',
      agentId: 12,
      number: '9555000012',
      groupId: 7,
      status: 'answered',
      totalRingDuration: 5,
      talkDuration: 68,
      totalHoldDuration: 12,
      answerSTime: '2026-11-24 21:30:20',
      answerETime: '2026-11-24 21:31:40',
      recording: '2026/11/24/c-1.wav',
    },
  ],
  callDisposition: 'completed',
  retryOf: null,
};

const envelope = (http: number, code: number, description: string, message: string) => ({
  description,
  content: { 'application/json': { schema: errorAnswerSchema([code], 'general', `HTTP ${http}`), example: { status: 'error', code, message } } },
});

const FILTERS = ['from', 'to', 'agentId', 'groupId', 'did', 'caller', 'callStatus', 'cType'];

export const EXPORT_SCHEMA = {
  tags: ['CallReport'],
  operationId: 'CallReport_export',
  summary: 'Every matching call as CSV (RFC 4180, header row, UTF-8), streamed',
  description:
    "One row per call, the report's scalar fields as columns in report order. Filters as CallReport/list. Credentials: `Authorization: Bearer` " +
    'with a session id, or `?ssid=`, or `?userId=` and `?token=`. Permission `analysis.view`.',
  security: STREAM_SECURITY,
  querystring: {
    type: 'object',
    properties: {
      ssid: { type: 'string' },
      userId: { type: 'string' },
      token: { type: 'string' },
      ...Object.fromEntries(FILTERS.map((f) => [f, { type: 'string' }])),
    },
  },
  response: {
    200: { description: 'The CSV', content: { 'text/csv': { schema: { type: 'string' }, example: 'callId,callStatus,cType,...\r\nc-1,3,IBD,...\r\n' } } },
    400: envelope(400, 1001, 'A bad filter (1000 / 1001)', 'Invalid data type or value: invalid date "x"'),
    401: envelope(401, 1014, 'No valid credentials; code 1014.', 'Invalid token'),
    403: envelope(403, 1015, 'Missing permission analysis.view', 'Permission denied: missing permission analysis.view'),
  },
};

export const DIRECTSTREAM_SCHEMA = {
  tags: ['CallReport'],
  operationId: 'recording_directstream',
  summary: 'A recording, by the rcrd reference of CallReport/detail (token and path joined with /)',
  description:
    'No other credential: the token (24 h, bound to the path) is the authorisation, so an `<audio>` element can play it. `Range` is answered with 206; ' +
    'the content type follows the extension.',
  security: [],
  params: { type: 'object', properties: { '*': { type: 'string', description: 'the token, then the path segments (`<token>/<path>`)' } } },
  response: {
    200: { description: 'The whole file', content: { 'audio/wav': { schema: { type: 'string', format: 'binary' } } } },
    206: { description: 'The requested byte range', content: { 'audio/wav': { schema: { type: 'string', format: 'binary' } } } },
    403: envelope(403, 1015, 'Missing, bad or expired token (checked first)', 'Permission denied: missing, bad or expired recording token'),
    404: envelope(404, 1012, 'No such file under RECORDINGS_DIR', 'No data found: no such recording'),
    416: envelope(416, 1001, 'Range not satisfiable', 'Invalid data type or value: range not satisfiable'),
  },
};
