/** The wallboard's API access: JSON POSTs with the session id in the body, envelopes unwrapped. */

export class ApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly http: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface Session {
  ssid: string;
  userId: string;
  username: string;
}

/** 1014: the session expired or was ended elsewhere; the board returns to sign-in. */
export const INVALID_SESSION = 1014;

const SESSION_KEY = 'callcenter.wallboard.session';

/** sessionStorage, not localStorage: the ssid dies with the tab and is never shared between tabs. */
export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(SESSION_KEY);
    const s = raw ? (JSON.parse(raw) as Partial<Session>) : null;
    return s && typeof s.ssid === 'string' && typeof s.userId === 'string' ? { ssid: s.ssid, userId: s.userId, username: s.username ?? '' } : null;
  } catch {
    return null;
  }
}

export function saveSession(s: Session | null): void {
  if (s) sessionStorage.setItem(SESSION_KEY, JSON.stringify(s));
  else sessionStorage.removeItem(SESSION_KEY);
}

/** POST /api/v2/<path> and return the success envelope, or throw ApiError with the envelope's code. */
export async function call<T = Record<string, unknown>>(path: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`/api/v2/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'the server cannot be reached', 0);
  }
  let json: Record<string, unknown>;
  try {
    json = (await res.json()) as Record<string, unknown>;
  } catch {
    throw new ApiError(res.status, `unexpected answer (HTTP ${res.status})`, res.status);
  }
  if (json.status !== 'success') {
    throw new ApiError(Number(json.code ?? res.status), String(json.message ?? 'request failed'), res.status);
  }
  return json as T;
}

/** An API client bound to one session. */
export function authed(session: Session) {
  return <T = Record<string, unknown>>(path: string, body: Record<string, unknown> = {}, signal?: AbortSignal) =>
    call<T>(path, { ...body, ssid: session.ssid }, signal);
}
export type Authed = ReturnType<typeof authed>;
