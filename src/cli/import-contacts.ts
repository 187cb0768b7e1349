import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { swallowed } from '../swallowed.js';

export const IMPORT_CONTACTS_USAGE =
  'usage: callcenter import contacts FILE --list CLID --api URL (--user-id ID --token T | --ssid S)   ' +
  '(or CALLCENTER_API_URL, CALLCENTER_USER_ID, CALLCENTER_TOKEN, CALLCENTER_SSID)';

export interface ContactImportAnswer {
  rows: number;
  added: number;
  updated: number;
  rejectedCount: number;
  rejected: Array<{ index: number; line: number; code: number; message: string }>;
}

export interface ContactImportTarget {
  api: string;
  clId: number;
  /** The session form (sent as `Authorization: Bearer`), or the token form (sent in the query, as the export takes it). */
  credentials: { ssid: string } | { userId: string; token: string };
}

class UsageError extends Error {}

/** The target from the flags, falling back on the CALLCENTER_* variables; a UsageError names what is missing. */
export function importTarget(options: Record<string, string>, env: NodeJS.ProcessEnv = process.env): ContactImportTarget {
  const api = options.api ?? env.CALLCENTER_API_URL;
  if (!api || !/^https?:\/\//.test(api)) throw new UsageError('--api URL (or CALLCENTER_API_URL) is required: the service, e.g. http://127.0.0.1:8080');
  const list = options.list;
  if (!list || !/^[0-9]{1,15}$/.test(list) || Number(list) < 1)
    throw new UsageError('--list CLID is required: the contact list (contactList/create answers it)');
  const ssid = options.ssid ?? env.CALLCENTER_SSID;
  const userId = options['user-id'] ?? env.CALLCENTER_USER_ID;
  const token = options.token ?? env.CALLCENTER_TOKEN;
  if (ssid) return { api, clId: Number(list), credentials: { ssid } };
  if (!userId || !token) throw new UsageError('credentials are required: --user-id and --token (an api token with campaign.manage), or --ssid');
  return { api, clId: Number(list), credentials: { userId, token } };
}

/** The progress line, redrawn in place on stderr: bytes sent of the file, rows (lines) sent, rate. */
function bar(sent: number, size: number, lines: number, startedMs: number): string {
  const width = 30;
  const frac = size > 0 ? Math.min(1, sent / size) : 1;
  const filled = Math.round(frac * width);
  const secs = (Date.now() - startedMs) / 1000;
  const rate = secs > 0 ? Math.round(lines / secs) : 0;
  return `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.round(frac * 100)}% ${lines.toLocaleString('en-US')} rows  ${rate.toLocaleString('en-US')} rows/s `;
}

/**
 * Streams FILE to `POST /api/v2/contactList/importCsv` (the public API, as
 * any client would) and answers the service's answer. The file is read as
 * the service takes it (the service parses and writes as the bytes arrive,
 * so the bytes sent are the rows done, give or take one batch);
 * `progress` draws the bar. An error envelope is thrown as an Error with
 * its code and message.
 */
export async function uploadContacts(file: string, target: ContactImportTarget, io: { progress: boolean }): Promise<ContactImportAnswer> {
  const size = fs.statSync(file).size;
  const url = new URL('/api/v2/contactList/importCsv', target.api);
  url.searchParams.set('clId', String(target.clId));
  const headers: Record<string, string> = { 'content-type': 'text/csv; charset=utf-8', 'content-length': String(size) };
  if ('ssid' in target.credentials) headers.authorization = `Bearer ${target.credentials.ssid}`;
  else {
    url.searchParams.set('userId', target.credentials.userId);
    url.searchParams.set('token', target.credentials.token);
  }
  const started = Date.now();
  let sent = 0;
  let lines = 0;
  let drawn = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      sent += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      if (io.progress && Date.now() - drawn >= 200) {
        drawn = Date.now();
        process.stderr.write(bar(sent, size, Math.max(0, lines - 1), started));
      }
      done(null, chunk);
    },
  });
  const request = (url.protocol === 'https:' ? https : http).request(url, { method: 'POST', headers });
  const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
    request.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    request.on('error', reject);
  });
  // The service may answer before it read the whole file (a refusal): the answer is what counts then, not the broken upload.
  const upload = pipeline(fs.createReadStream(file), counter, request).catch(swallowed('cli.upload'));
  const { status, text } = await answered;
  await upload;
  if (io.progress) process.stderr.write(`${bar(sent, size, Math.max(0, lines - 1), started)}\n`);
  let body: { status?: string; code?: number; message?: string; data?: ContactImportAnswer };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new Error(`the service answered HTTP ${status} without a JSON body`);
  }
  if (body.status !== 'success' || !body.data) throw new Error(`error ${body.code ?? status}: ${body.message ?? 'no message'}`);
  return body.data;
}

/** `callcenter import contacts FILE --list CLID …`: exit 0 when the file was read (rejected rows are listed), 1 on an error answer, 2 on bad usage. */
export async function importContactsCommand(files: string[], options: Record<string, string>): Promise<number> {
  const file = files[0];
  let target: ContactImportTarget;
  try {
    if (!file) throw new UsageError('FILE is required');
    if (!fs.existsSync(file)) throw new UsageError(`no such file: ${file}`);
    target = importTarget(options);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n${IMPORT_CONTACTS_USAGE}\n`);
    return 2;
  }
  try {
    const r = await uploadContacts(file, target, { progress: process.stderr.isTTY === true });
    for (const x of r.rejected) process.stderr.write(`line ${x.line}: ${x.code} ${x.message}\n`);
    if (r.rejectedCount > r.rejected.length) process.stderr.write(`… and ${r.rejectedCount - r.rejected.length} more rejected rows\n`);
    console.log(`${r.rows} rows: ${r.added} added, ${r.updated} updated, ${r.rejectedCount} rejected`);
    return 0;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 1;
  }
}
