import { useEffect, useState } from 'preact/hooks';
import { explain } from '../lib/errors.js';
import { when } from '../lib/format.js';
import { api, can, me } from '../lib/session.js';
import { Field, Status, Table } from '../lib/ui.js';
import { ConfirmDelete, SectionNav, SelectField, useSection, useSubmit } from './form.js';

/**
 * Integrations: webhooks with their delivery log and redelivery (webhook.manage, docs/webhooks.md),
 * and tokens for the userId + token form (auth/token, auth/revokeToken: every principal for its
 * own; switch tokens for a client only).
 */
interface Webhook {
  webhookId: number;
  url: string;
  name: string;
  status: 'active' | 'unverified' | 'disabled';
  lastError: string | null;
}

interface Attempt {
  at: number;
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
}

interface Delivery {
  deliveryId: number;
  webhookId: number;
  callId: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Attempt[];
}

const STATUS_TEXT: Record<Webhook['status'], string> = {
  active: 'Active',
  unverified: 'Not verified',
  disabled: 'Disabled (the receiver answered 410)',
};

function Deliveries({ hook }: { hook: Webhook }) {
  const [rows, setRows] = useState<Delivery[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [filter, setFilter] = useState('');
  const load = async (cursor?: string) => {
    try {
      const res = await api<{ data: Delivery[]; nextCursor: string | null }>('webhook/deliveries', {
        webhookId: hook.webhookId,
        limit: 20,
        ...(filter ? { status: filter } : {}),
        ...(cursor ? { cursor } : {}),
      });
      setRows((old) => (cursor && old ? [...old, ...res.data] : res.data));
      setNext(res.nextCursor);
    } catch (err) {
      setStatus(explain(err).text);
    }
  };
  useEffect(() => void load(), [hook.webhookId, filter]);
  const redeliver = async (d: Delivery) => {
    try {
      await api('webhook/redeliver', { deliveryId: d.deliveryId });
      setStatus(`Delivery ${d.deliveryId} (call ${d.callId}) is being sent again.`);
      await load();
    } catch (err) {
      setStatus(explain(err).text);
    }
  };
  const last = (d: Delivery) => d.attempts[d.attempts.length - 1];
  return (
    <section class="card" aria-labelledby="deliveries-title" id="deliveries">
      <h2 id="deliveries-title">Delivery log of {hook.name || hook.url}</h2>
      <div class="row-form">
        <div class="field">
          <label for="deliveries-status-filter">Show</label>
          <select id="deliveries-status-filter" value={filter} onChange={(e) => setFilter((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">Every delivery</option>
            <option value="pending">Pending</option>
            <option value="delivered">Delivered</option>
            <option value="failed">Failed</option>
          </select>
        </div>
        <button type="button" class="secondary" id="btn-deliveries-refresh" onClick={() => void load()}>
          Refresh
        </button>
      </div>
      <Status text={status} id="deliveries-status" />
      {rows && (
        <Table
          caption={`Deliveries, newest first`}
          rows={rows}
          rowKey={(d) => String(d.deliveryId)}
          empty="No report has been sent to this webhook yet."
          columns={[
            { label: 'Call', cell: (d) => d.callId },
            { label: 'Status', cell: (d) => <span data-delivery-status={d.status}>{d.status}</span> },
            { label: 'Attempts', cell: (d) => <span data-attempts>{d.attempts.length}</span>, num: true },
            { label: 'Last attempt', cell: (d) => (last(d) ? when(last(d)!.at) : '—') },
            {
              label: 'Answer',
              cell: (d) => {
                const a = last(d);
                if (!a) return '—';
                return a.error ? a.error : `HTTP ${a.httpStatus ?? '—'} in ${a.durationMs} ms`;
              },
            },
            {
              label: 'Actions',
              cell: (d) => (
                <button type="button" class="secondary" aria-label={`Redeliver call ${d.callId}`} onClick={() => void redeliver(d)}>
                  Redeliver
                </button>
              ),
            },
          ]}
        />
      )}
      {next && (
        <button type="button" class="secondary" onClick={() => void load(next)}>
          Older deliveries
        </button>
      )}
    </section>
  );
}

function Webhooks() {
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [status, setStatus] = useState('');
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  const [open, setOpen] = useState<Webhook | null>(null);
  const load = async () => {
    try {
      const list = (await api<{ data: Webhook[] }>('webhook/list', {})).data;
      setHooks(list);
      setOpen((o) => (o ? (list.find((h) => h.webhookId === o.webhookId) ?? null) : null));
    } catch (err) {
      setStatus(explain(err).text);
    }
  };
  useEffect(() => void load(), []);
  const [out, submit] = useSubmit('general', ['url', 'name'], async (data, form) => {
    const url = String(data.get('url') ?? '').trim();
    const name = String(data.get('name') ?? '').trim();
    const res = await api<{ data: { webhookId: number; secret: string; status: Webhook['status']; lastError?: string } }>('webhook/create', { url, name });
    form.reset();
    setSecret({ name: name || url, secret: res.data.secret });
    await load();
    return res.data.status === 'active'
      ? `Webhook ${res.data.webhookId} created and verified.`
      : `Webhook ${res.data.webhookId} created but not verified: ${res.data.lastError ?? 'the url did not answer GODBLESSYOU'}.`;
  });
  const verify = async (h: Webhook) => {
    try {
      const res = await api<{ data: Webhook }>('webhook/verify', { webhookId: h.webhookId });
      setStatus(res.data.status === 'active' ? `${h.name || h.url} is verified.` : `${h.name || h.url} is not verified: ${res.data.lastError ?? ''}`);
      await load();
    } catch (err) {
      setStatus(explain(err).text);
    }
  };
  return (
    <section aria-labelledby="webhooks-title" class="section">
      <h2 id="webhooks-title">Webhooks</h2>
      <p class="note">
        One signed report per ended call, retried until the receiver acknowledges it. The url must answer <code>GODBLESSYOU</code> to a GET (see the
        integrators’ guide, docs/webhooks.md).
      </p>
      <form class="card row-form" onSubmit={submit} aria-label="Add a webhook" id="webhook-form" noValidate>
        <Field name="url" label="Receiver url" type="url" error={out.errors.url} required />
        <Field name="name" label="Name (optional)" error={out.errors.name} />
        <button type="submit" disabled={out.busy}>
          Add webhook
        </button>
        <Status text={out.status} id="webhook-form-status" />
      </form>
      {secret && (
        <div class="card" role="region" aria-label="The new webhook's secret">
          <p>
            The signing secret of <strong>{secret.name}</strong>, shown only now: keep it with the receiver.
          </p>
          <p>
            <code id="webhook-secret">{secret.secret}</code>
          </p>
          <button type="button" class="ghost" onClick={() => setSecret(null)}>
            I have kept it
          </button>
        </div>
      )}
      <p class="status" role="status" id="webhooks-status" tabIndex={-1}>
        {status}
      </p>
      {hooks && (
        <Table
          caption={`${hooks.length} webhook${hooks.length === 1 ? '' : 's'}`}
          rows={hooks}
          rowKey={(h) => String(h.webhookId)}
          empty="No webhooks yet."
          columns={[
            { label: 'Name', cell: (h) => h.name || '—' },
            { label: 'Url', cell: (h) => h.url },
            { label: 'Status', cell: (h) => STATUS_TEXT[h.status] + (h.lastError ? ` — ${h.lastError}` : '') },
            {
              label: 'Actions',
              cell: (h) => (
                <span class="inline">
                  <button
                    type="button"
                    class="secondary"
                    aria-label={`Deliveries of ${h.name || h.url}`}
                    aria-pressed={open?.webhookId === h.webhookId}
                    onClick={() => setOpen(open?.webhookId === h.webhookId ? null : h)}
                  >
                    Deliveries
                  </button>
                  {h.status !== 'active' && (
                    <button type="button" class="secondary" aria-label={`Verify ${h.name || h.url} again`} onClick={() => void verify(h)}>
                      Verify
                    </button>
                  )}
                  <ConfirmDelete
                    what={h.name || h.url}
                    onConfirm={async () => {
                      try {
                        await api('webhook/delete', { webhookId: h.webhookId });
                        setStatus(`Webhook ${h.name || h.url} deleted with its delivery log.`);
                        await load();
                        // The row and its buttons are gone: the focus goes to what happened.
                        document.getElementById('webhooks-status')?.focus();
                      } catch (err) {
                        setStatus(explain(err).text);
                      }
                    }}
                  />
                </span>
              ),
            },
          ]}
        />
      )}
      {open && <Deliveries hook={open} key={open.webhookId} />}
    </section>
  );
}

function Tokens() {
  const client = me.value?.kind === 'client';
  const [made, setMade] = useState<{ userId: string; token: string; kind: string } | null>(null);
  const [out, submit] = useSubmit('general', ['name', 'kind'], async (data, form) => {
    const kind = String(data.get('kind') ?? 'api');
    const res = await api<{ userId: string; token: string }>('auth/token', { name: String(data.get('name') ?? '').trim(), kind });
    form.reset();
    setMade({ ...res, kind });
    return kind === 'switch' ? 'A switch token was created.' : 'An API token was created.';
  });
  const [revoked, revoke] = useSubmit('general', ['revoke'], async (data, form) => {
    await api('auth/revokeToken', { revoke: String(data.get('revoke') ?? '').trim() });
    form.reset();
    return 'The token is revoked: it stops working at once, on every node.';
  });
  return (
    <section aria-labelledby="tokens-title" class="section">
      <h2 id="tokens-title">Tokens</h2>
      <p class="note">
        A long-lived token signs requests as <code>userId</code> + <code>token</code> (scripts, a CRM) with the permissions of the one who made it
        {client ? '; a switch token is what a switch connector uses to report events and receive commands' : ''}. The service keeps no readable copy: it is
        shown once.
      </p>
      <form class="card row-form" onSubmit={submit} aria-label="Create a token" id="token-form" noValidate>
        <Field name="name" label="Name" error={out.errors.name} hint="what uses it, e.g. CRM" />
        {client && (
          <SelectField
            name="kind"
            label="Kind"
            error={out.errors.kind}
            options={[
              ['api', 'API token'],
              ['switch', 'Switch token'],
            ]}
            selected="api"
          />
        )}
        <button type="submit" disabled={out.busy}>
          Create token
        </button>
        <Status text={out.status} id="token-form-status" />
      </form>
      {made && (
        <div class="card" role="region" aria-label="The new token">
          <dl class="facts">
            <dt>userId</dt>
            <dd>
              <code id="token-user">{made.userId}</code>
            </dd>
            <dt>token</dt>
            <dd>
              <code id="token-value">{made.token}</code>
            </dd>
          </dl>
          <button type="button" class="ghost" onClick={() => setMade(null)}>
            I have kept it
          </button>
        </div>
      )}
      <form class="card row-form" onSubmit={revoke} aria-label="Revoke a token" id="revoke-form" noValidate>
        <Field name="revoke" label="Token to revoke" error={revoked.errors.revoke} required />
        <button type="submit" class="danger" disabled={revoked.busy}>
          Revoke
        </button>
        <Status text={revoked.status} id="revoke-form-status" />
      </form>
    </section>
  );
}

export function IntegrationsPage() {
  const sections = (
    [
      ['webhooks', 'Webhooks', can('webhook.manage')],
      ['tokens', 'Tokens', true],
    ] as const
  ).filter(([, , ok]) => ok);
  const current = useSection(
    'integrations',
    sections.map(([id]) => id),
  );
  return (
    <>
      <SectionNav page="integrations" label="Integrations" current={current} sections={sections.map(([id, title]) => [id, title])} />
      {current === 'webhooks' && <Webhooks />}
      {current === 'tokens' && <Tokens />}
    </>
  );
}
