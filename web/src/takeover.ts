import { ApiError, INVALID_SESSION, type Authed } from './api.js';
import { byId, h } from './dom.js';
import { STATE_LABEL, type AgentView } from './model.js';
import { toast } from './view.js';

export interface TakeoverDeps {
  api: Authed;
  /** The agents as last shown (candidates to take the call). */
  agents(): AgentView[];
  onExpired(): void;
  onDone(): void;
}

/** The takeover dialog: pick the agent who takes a live call, then queue/callTakeover {callId, agentid}. */
export function takeoverDialog(deps: TakeoverDeps): { open(a: AgentView): void; dispose(): void } {
  const dialog = byId<HTMLDialogElement>('takeover-dialog');
  const pick = byId<HTMLSelectElement>('takeover-agent');
  const form = byId<HTMLFormElement>('takeover-form');
  const cancelButton = byId('takeover-cancel');
  const error = byId('takeover-error');

  const open = (a: AgentView) => {
    byId('takeover-call').textContent = `Call ${a.call?.caller ? `from ${a.call.caller}` : (a.call?.callId ?? '')}, now with ${a.name}.`;
    error.textContent = '';
    // Logged-in agents not busy with a call (the server refuses those), the available ones first.
    const rank: Record<string, number> = { available: 0, wrapup: 1, break: 2 };
    const candidates = deps
      .agents()
      .filter((x) => x.id !== a.id && x.state in rank)
      .sort((x, y) => rank[x.state]! - rank[y.state]! || x.name.localeCompare(y.name));
    pick.replaceChildren(...candidates.map((x) => h('option', { value: x.id }, `${x.name} — ${STATE_LABEL[x.state].toLowerCase()}`)));
    dialog.dataset.callId = a.call?.callId ?? '';
    dialog.showModal();
    pick.focus();
  };

  const confirm = async (ev: SubmitEvent) => {
    ev.preventDefault();
    const agentid = pick.value;
    if (!agentid) {
      error.textContent = 'Choose the agent who takes the call.';
      return;
    }
    try {
      const res = await deps.api<{ data?: { callId: string; to: unknown } }>('queue/callTakeover', { callId: dialog.dataset.callId, agentid });
      dialog.close();
      const to = deps.agents().find((x) => x.id === String(res.data?.to ?? agentid))?.name ?? `agent ${agentid}`;
      toast(`Call ${res.data?.callId ?? dialog.dataset.callId} moved to ${to}`);
      deps.onDone();
    } catch (err) {
      if (err instanceof ApiError && err.code === INVALID_SESSION) {
        dialog.close();
        deps.onExpired();
        return;
      }
      error.textContent = err instanceof ApiError ? `${err.message} (code ${err.code})` : (err as Error).message;
    }
  };
  const onSubmit = (ev: SubmitEvent) => void confirm(ev);
  const cancel = () => dialog.close();

  form.addEventListener('submit', onSubmit);
  cancelButton.addEventListener('click', cancel);
  return {
    open,
    dispose() {
      form.removeEventListener('submit', onSubmit);
      cancelButton.removeEventListener('click', cancel);
      if (dialog.open) dialog.close();
    },
  };
}
