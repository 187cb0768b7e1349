import { signal } from '@preact/signals';
import { useState } from 'preact/hooks';
import { explain } from '../lib/errors.js';
import { api, me } from '../lib/session.js';
import { Field, Status } from '../lib/ui.js';

/** The number the click-to-call form dials (a callback's "Call back" fills it). */
export const dialNumber = signal('');

/** Click-to-call (call/originate): the switch rings this agent, then dials the customer. */
export async function dial(customer: string): Promise<string> {
  const res = await api<{ data: { callId: string } }>('call/originate', { agentId: me.value!.agentId, customer });
  return res.data.callId;
}

export function Dialer() {
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');
  const submit = async (ev: Event) => {
    ev.preventDefault();
    setError('');
    setStatus('');
    const number = dialNumber.value.trim();
    try {
      const callId = await dial(number);
      setStatus(`Calling ${number}: your phone rings first (call ${callId}).`);
    } catch (err) {
      const e = explain(err, 'agent', ['customer']);
      if (e.field === 'customer' || (err as { code?: number }).code === 1005) setError(e.text);
      else setStatus(e.text);
    }
  };
  return (
    <section class="card" aria-labelledby="dial-title">
      <h2 id="dial-title">Call a number</h2>
      <form onSubmit={submit} class="row-form">
        <Field
          name="customer"
          label="Number"
          type="tel"
          error={error}
          value={dialNumber.value}
          autocomplete="tel"
          inputProps={{ onInput: (e: Event) => (dialNumber.value = (e.currentTarget as HTMLInputElement).value) }}
        />
        <button type="submit">Call</button>
      </form>
      <Status text={status} id="dial-status" />
    </section>
  );
}
