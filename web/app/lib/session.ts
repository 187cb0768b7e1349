import { computed, signal } from '@preact/signals';
import { ApiError, call } from '../../src/api.js';

/**
 * The signed-in principal of the console and the agent desk: the ssid of auth/login (kept in
 * sessionStorage: it dies with the tab) and what auth/whoami answers. Every page and button asks
 * `can(permission)`; the API refuses what is hidden anyway (1015).
 */
export interface Me {
  kind: 'client' | 'agent';
  userId: string;
  agentId: number | null;
  permissions: string[];
  canSee: boolean;
}

interface Stored {
  ssid: string;
  username: string;
}

const KEY = 'callcenter.app.session';
/** 1014: the session expired or was ended elsewhere: back to sign-in. */
export const INVALID_SESSION = 1014;

function load(): Stored | null {
  try {
    const s = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Stored | null;
    return s && typeof s.ssid === 'string' ? s : null;
  } catch {
    return null;
  }
}

export const session = signal<Stored | null>(load());
export const me = signal<Me | null>(null);
/** Why the sign-in form is shown again (a session that ended), or ''. */
export const signInNote = signal('');

export const permissions = computed(() => new Set(me.value?.permissions ?? []));
export function can(permission: string): boolean {
  return permissions.value.has(permission);
}

export function signOut(note = ''): void {
  sessionStorage.removeItem(KEY);
  me.value = null;
  session.value = null;
  signInNote.value = note;
}

/** POST /api/v2/<path> with the session; a 1014 signs out. */
export async function api<T = Record<string, unknown>>(path: string, body: Record<string, unknown> = {}, signal?: AbortSignal): Promise<T> {
  const s = session.value;
  if (!s) throw new ApiError(INVALID_SESSION, 'not signed in', 401);
  try {
    return await call<T>(path, { ...body, ssid: s.ssid }, signal);
  } catch (err) {
    if (err instanceof ApiError && err.code === INVALID_SESSION) signOut('Your session ended. Please sign in again.');
    throw err;
  }
}

export async function signIn(username: string, password: string): Promise<void> {
  const res = await call<{ ssid: string }>('auth/login', { username, password });
  const stored = { ssid: res.ssid, username };
  sessionStorage.setItem(KEY, JSON.stringify(stored));
  signInNote.value = '';
  session.value = stored;
  await loadMe();
}

/** Reads auth/whoami for the stored session (at start and after sign-in). */
export async function loadMe(): Promise<void> {
  me.value = (await api<{ data: Me }>('auth/whoami')).data;
}

export async function signOutEverywhere(): Promise<void> {
  try {
    await api('auth/logout');
  } finally {
    signOut();
  }
}
