import { ApiError, INVALID_SESSION, authed, call, loadSession, saveSession, type Authed, type Session } from './api.js';
import { byId, clockText, h } from './dom.js';

/**
 * The latest calls page (/wallboard/calls): CallReport/list, newest first,
 * and a play button per recorded call. Playing asks CallReport/detail for the
 * recording's directstream reference (`<token>*<segments>`, joined with `/`),
 * which an `<audio>` element plays with no other credential. Same session as
 * the wallboard (sessionStorage of the tab).
 */

interface Report {
  callId: string;
  callStatus: number;
  cType: string;
  cNumber: string;
  ivrSTime: string;
  talkDuration: number;
  masterAgent: number | null;
  recordings: Array<{ file: string }>;
}

const STATUS: Record<number, string> = { 0: 'Failed', 1: 'Ended before an offer', 2: 'Missed', 3: 'Answered' };

function showLogin(message = ''): void {
  byId('calls-view').hidden = true;
  byId('login-view').hidden = false;
  byId('login-error').textContent = message;
}

async function onLogin(ev: SubmitEvent): Promise<void> {
  ev.preventDefault();
  const username = byId<HTMLInputElement>('login-username').value.trim();
  const password = byId<HTMLInputElement>('login-password').value;
  try {
    const res = await call<{ ssid: string; userId: string }>('auth/login', { username, password });
    const session: Session = { ssid: res.ssid, userId: String(res.userId), username };
    saveSession(session);
    start(session);
  } catch (err) {
    byId('login-error').textContent = err instanceof ApiError && err.code === INVALID_SESSION ? 'Wrong username or password.' : (err as Error).message;
  }
}

function start(session: Session): void {
  byId('login-view').hidden = true;
  byId('calls-view').hidden = false;
  const api: Authed = authed(session);
  const status = byId('calls-status');
  const player = byId<HTMLAudioElement>('player');

  const failed = (err: unknown) => {
    if (err instanceof ApiError && err.code === INVALID_SESSION) {
      saveSession(null);
      showLogin('Your session ended. Please sign in again.');
    } else status.textContent = (err as Error).message;
  };

  const play = async (callId: string, button: HTMLButtonElement) => {
    try {
      const res = await api<{ data: { rcrdAr?: Array<{ rcrd: string }> } }>('CallReport/detail', { clId: callId, rType: ['rcrd'] });
      const first = res.data.rcrdAr?.[0];
      if (!first) return;
      player.hidden = false;
      player.src = `/api/v2/recording/directstream/${first.rcrd.split('*').join('/')}`;
      player.dataset.callId = callId;
      await player.play();
      status.textContent = `Playing the recording of ${callId}`;
    } catch (err) {
      failed(err);
    } finally {
      button.focus();
    }
  };

  const load = async () => {
    status.textContent = 'Loading…';
    try {
      const res = await api<{ data: Report[] }>('CallReport/list', { limit: 50 });
      const rows = res.data.map((r) => {
        const button = h('button', { type: 'button', class: 'play', 'aria-label': `Play the recording of call ${r.callId}` }, 'Play');
        button.addEventListener('click', () => void play(r.callId, button));
        return h(
          'tr',
          { 'data-call-id': r.callId },
          h('td', {}, r.ivrSTime),
          h('td', {}, r.callId),
          h('td', {}, r.cNumber),
          h('td', {}, r.cType),
          h('td', {}, STATUS[r.callStatus] ?? String(r.callStatus)),
          h('td', {}, r.masterAgent ?? '—'),
          h('td', {}, clockText(r.talkDuration)),
          h('td', {}, r.recordings.length > 0 ? button : '—'),
        );
      });
      byId('calls-table')
        .querySelector('tbody')!
        .replaceChildren(...rows);
      status.textContent = `${rows.length} calls`;
    } catch (err) {
      failed(err);
    }
  };
  byId('refresh').addEventListener('click', () => void load());
  void load();
}

byId<HTMLFormElement>('login-form').addEventListener('submit', (ev) => void onLogin(ev));
const session = loadSession();
if (session) start(session);
else showLogin();
