import { afterCommit } from '../../db/ambient.js';
import type { Clock } from '../../clock.js';
import { tenant } from '../../db/tenant.js';
import type { Database } from '../../db/types.js';
import { fail } from '../../errors/catalogue.js';
import { refuseUrl } from './address-guard.js';
import type { DeliveryWorker } from './delivery.worker.js';
import { newSecret } from './signature.js';
import type { WebhookFilter } from './webhook-filter.js';
import { parseFilter } from './webhook-filter.js';
import type { WebhookHttp } from './webhook-http.js';
import { WebhookRepository, type DeliveryStatus, type WebhookRow, type WebhookStatus } from './webhook.repository.js';

/** The answer the vendor's verification expects from a receiver. */
export const VERIFY_ANSWER = 'GODBLESSYOU';

export interface WebhookView {
  webhookId: number;
  url: string;
  name: string;
  filter: WebhookFilter;
  status: WebhookStatus;
  lastError: string | null;
}

function view(r: WebhookRow): WebhookView {
  return { webhookId: r.id, url: r.url, name: r.name, filter: parseFilter(r.filter), status: r.status, lastError: r.last_error };
}

/** Keeps only the filter lists that were given. */
function cleanFilter(f: WebhookFilter | undefined): WebhookFilter {
  const out: WebhookFilter = {};
  if (f?.cType) out.cType = f.cType.map((c) => c.toUpperCase());
  if (f?.did) out.did = f.did.map((d) => d.replace(/\D/g, ''));
  if (f?.campaignId) out.campaignId = f.campaignId.map(String);
  if (f?.groupId) out.groupId = f.groupId;
  return out;
}

/** A url checked and probed ahead of the transaction. */
export interface Checked {
  url: string;
  verdict: { status: WebhookStatus; lastError: string | null };
}

export interface WebhookServiceDeps {
  db: Database;
  clock: Clock;
  http: WebhookHttp;
  worker: DeliveryWorker;
  /** Private and loopback targets are allowed (WEBHOOK_ALLOW_PRIVATE; tests). */
  allowPrivate: boolean;
}

/** Webhook subscriptions (PRODUCT.md §9): create, verify, change, delete, the delivery log, redelivery. */
export class WebhookService {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly http: WebhookHttp;
  private readonly worker: DeliveryWorker;
  private readonly allowPrivate: boolean;

  constructor({ db, clock, http, worker, allowPrivate }: WebhookServiceDeps) {
    this.db = db;
    this.clock = clock;
    this.http = http;
    this.worker = worker;
    this.allowPrivate = allowPrivate;
  }

  /** A held report (WebhookSink.hold) is due now: its call's campaign disposition was set. */
  async release(accountId: number, callId: string): Promise<void> {
    const now = Math.floor(this.clock.now());
    const moved = await this.db.transaction(async (tx) => {
      const repo = new WebhookRepository(tenant(tx, accountId));
      await repo.expandOutbox();
      return repo.release(callId, now);
    });
    if (moved > 0) this.worker.nudge();
  }

  private expandOutbox(accountId: number): Promise<void> {
    return this.db.transaction((tx) => new WebhookRepository(tenant(tx, accountId)).expandOutbox());
  }

  private repo(accountId: number) {
    return new WebhookRepository(tenant(this.db, accountId));
  }

  private async checkUrl(url: string): Promise<string> {
    const trimmed = url.trim();
    const why = await refuseUrl(trimmed, this.allowPrivate);
    if (why) throw fail(1000, `url: ${why}`);
    return trimmed;
  }

  /** `GET <url>`: active only on a 2xx whose body is GODBLESSYOU (whitespace ignored). */
  async probe(url: string): Promise<{ status: WebhookStatus; lastError: string | null }> {
    const out = await this.http.request('GET', url, {});
    if (out.httpStatus === null) return { status: 'unverified', lastError: out.error };
    if (out.httpStatus < 200 || out.httpStatus > 299) return { status: 'unverified', lastError: `verification answered HTTP ${out.httpStatus}` };
    if ((out.response ?? '').trim() !== VERIFY_ANSWER) return { status: 'unverified', lastError: `verification answer was not ${VERIFY_ANSWER}` };
    return { status: 'active', lastError: null };
  }

  /**
   * The url checked and verified: network work, done before the audited
   * transaction opens (the operation's `prepare`), so no transaction waits
   * on a receiver.
   */
  async checked(rawUrl: string): Promise<Checked> {
    const url = await this.checkUrl(rawUrl);
    return { url, verdict: await this.probe(url) };
  }

  /** What webhook/update must verify first: the new url, when it changes. */
  async checkedForUpdate(accountId: number, webhookId: number, rawUrl: string | undefined): Promise<Checked | undefined> {
    if (rawUrl === undefined) return undefined;
    const row = await this.repo(accountId).get(webhookId);
    return row && rawUrl.trim() !== row.url ? this.checked(rawUrl) : undefined;
  }

  /** What webhook/verify sends: the probe of the current url. */
  async probeOf(accountId: number, webhookId: number): Promise<Checked> {
    const row = await this.existing(accountId, webhookId);
    return { url: row.url, verdict: await this.probe(row.url) };
  }

  async create(accountId: number, input: { url: string; name?: string; filter?: WebhookFilter }, pre?: Checked) {
    const { url, verdict } = pre ?? (await this.checked(input.url));
    const secret = newSecret();
    const webhookId = await this.repo(accountId).insert({
      url,
      name: input.name?.trim() ?? '',
      filter: JSON.stringify(cleanFilter(input.filter)),
      secret,
      status: verdict.status,
      lastError: verdict.lastError,
      now: Math.floor(this.clock.now() / 1000),
    });
    return { webhookId, secret, status: verdict.status, ...(verdict.lastError !== null ? { lastError: verdict.lastError } : {}) };
  }

  async list(accountId: number): Promise<WebhookView[]> {
    return (await this.repo(accountId).list()).map(view);
  }

  private async existing(accountId: number, webhookId: number): Promise<WebhookRow> {
    const row = await this.repo(accountId).get(webhookId);
    if (!row) throw fail(1012, `webhook ${webhookId} not found`);
    return row;
  }

  /** Merges the given fields; a changed url is checked and verified again. */
  async update(accountId: number, webhookId: number, input: { url?: string; name?: string; filter?: WebhookFilter }, pre?: Checked): Promise<WebhookView> {
    const row = await this.existing(accountId, webhookId);
    let { url, status, last_error: lastError } = row;
    if (input.url !== undefined && input.url.trim() !== row.url) {
      const c = pre && pre.url === input.url.trim() ? pre : await this.checked(input.url);
      url = c.url;
      ({ status, lastError } = c.verdict);
    }
    const next = {
      url,
      name: input.name !== undefined ? input.name.trim() : row.name,
      filter: input.filter !== undefined ? JSON.stringify(cleanFilter(input.filter)) : row.filter,
      status,
      lastError,
    };
    await this.repo(accountId).update(webhookId, next);
    if (status === 'active') afterCommit(() => this.worker.nudge());
    return view({ ...row, ...next, last_error: lastError });
  }

  async remove(accountId: number, webhookId: number): Promise<void> {
    const removed = await this.db.transaction((tx) => new WebhookRepository(tenant(tx, accountId)).delete(webhookId));
    if (!removed) throw fail(1012, `webhook ${webhookId} not found`);
  }

  /** Verifies the current url again (also how a subscription disabled by a 410 comes back). */
  async verify(accountId: number, webhookId: number, pre?: Checked): Promise<WebhookView> {
    const row = await this.existing(accountId, webhookId);
    const { status, lastError } = pre && pre.url === row.url ? pre.verdict : await this.probe(row.url);
    await this.repo(accountId).setStatus(webhookId, status, lastError);
    if (status === 'active') afterCommit(() => this.worker.nudge());
    return view({ ...row, status, last_error: lastError });
  }

  async deliveries(accountId: number, f: { webhookId?: number; status?: DeliveryStatus; callId?: string; cursor?: string; limit?: number }) {
    const limit = f.limit ?? 50;
    let before: number | undefined;
    if (f.cursor !== undefined) {
      if (!/^\d{1,15}$/.test(f.cursor)) throw fail(1000, 'cursor');
      before = Number(f.cursor);
    }
    // An unknown or foreign webhookId is 1012 (PRODUCT.md §9), not an empty log.
    if (f.webhookId !== undefined) await this.existing(accountId, f.webhookId);
    // What ingest queued since the worker's last round is part of the log already.
    await this.expandOutbox(accountId);
    const repo = this.repo(accountId);
    const rows = await repo.deliveries({ webhookId: f.webhookId, status: f.status, callId: f.callId, before, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const attempts = await repo.attemptsOf(page.map((r) => r.id));
    return {
      data: page.map((r) => ({
        deliveryId: r.id,
        webhookId: r.webhook_id,
        callId: r.call_id,
        status: r.status,
        attempts: attempts
          .filter((a) => a.delivery_id === r.id)
          .map((a) => ({ at: Math.floor(a.at / 1000), httpStatus: a.http_status, durationMs: a.duration_ms, error: a.error, response: a.response })),
      })),
      nextCursor: rows.length > limit ? String(page[page.length - 1]!.id) : null,
    };
  }

  /** Sends a delivery again from now on, with the same body and webhook-id; its log is kept. */
  async redeliver(accountId: number, deliveryId: number): Promise<void> {
    await this.expandOutbox(accountId);
    if (!(await this.repo(accountId).redeliver(deliveryId, Math.floor(this.clock.now())))) throw fail(1012, `delivery ${deliveryId} not found`);
    afterCommit(() => this.worker.nudge());
  }
}
