import { ApiError } from '../../src/api.js';
import { INVALID_SESSION, session, signOut } from '../lib/session.js';

/**
 * CSV downloads. The reports' CSV is the operation itself with `format: "csv"` (a POST with the
 * ssid in the body); CallReport/export is a GET that takes the session as `Authorization: Bearer`.
 * Both are fetched, so the ssid never goes into an address (history, server logs), and handed to
 * the browser as a Blob to save. A refusal is the API's JSON envelope: thrown as ApiError.
 */
async function save(res: Response, filename: string): Promise<string> {
  const type = res.headers.get('content-type') ?? '';
  if (!res.ok || !type.startsWith('text/csv')) {
    const json = (await res.json().catch(() => ({}))) as { code?: number; message?: string };
    const err = new ApiError(Number(json.code ?? res.status), String(json.message ?? `HTTP ${res.status}`), res.status);
    if (err.code === INVALID_SESSION) signOut('Your session ended. Please sign in again.');
    throw err;
  }
  const text = await res.text();
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  // The browser has the file once the click is handled; the address is not needed after.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return text;
}

function ssid(): string {
  const s = session.value;
  if (!s) throw new ApiError(INVALID_SESSION, 'not signed in', 401);
  return s.ssid;
}

/** POST /api/v2/<path> with `format: "csv"`; answers the CSV text (also saved as `filename`). */
export async function downloadReportCsv(path: string, body: Record<string, unknown>, filename: string): Promise<string> {
  const res = await fetch(`/api/v2/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, format: 'csv', ssid: ssid() }),
  });
  return save(res, filename);
}

/** GET /api/v2/<path>?<query> with the session as a bearer token (CallReport/export). */
export async function downloadGetCsv(path: string, query: Record<string, string>, filename: string): Promise<string> {
  const res = await fetch(`/api/v2/${path}?${new URLSearchParams(query)}`, { headers: { authorization: `Bearer ${ssid()}` } });
  return save(res, filename);
}
