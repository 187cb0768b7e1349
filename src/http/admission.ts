import type { FastifyError, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { AuthService, Credentials } from '../auth/auth.service.js';
import { credentialsFromBody, credentialsFromQuery, credentialsFromUserIdToken } from '../auth/credentials.js';
import type { Permission } from '../auth/permissions.js';
import type { Principal, PrincipalKind } from '../auth/principal.js';
import { AppError, fail } from '../errors/catalogue.js';
import type { RequestLimits } from './request-limits.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/**
 * Where a surface takes its credentials from (auth/credentials.ts):
 * - `body`: `ssid`, or `userId` + `token`, in the JSON body (operations);
 * - `query`: the same in the query string, or `Authorization: Bearer <ssid>`
 *   (the stream, the CSV export, uploads with a raw body);
 * - `user_id+token`: the vendor's v3 query parameters `user_id` and `token`;
 * - `signed`: a link that carries its own signed token (a recording),
 *   checked by the rule's `verify`; no principal;
 * - `none`: no credentials (login).
 */
export type CredentialSource = 'body' | 'query' | 'user_id+token' | 'signed' | 'none';

/** What a surface asks of its caller (operation.ts, surface.ts). */
export interface AdmissionRule {
  module: string;
  name: string;
  credentials: CredentialSource;
  principals: readonly PrincipalKind[];
  permission?: Permission;
  /** The message of 1015 for a principal kind not in `principals`; default names the operation. */
  kindRefusal?: (kind: PrincipalKind) => string;
  /** A permission check beyond `permission` (the stream: either of two); answers the 1015 detail, or null to admit. */
  refuse?: (principal: Principal) => string | null;
  /** `credentials: 'signed'`: whether the link's token is good (1015 when not, counted like credentials that did not resolve). */
  verify?: (request: FastifyRequest) => Promise<boolean>;
  /** `credentials: 'signed'`: the 1015 detail for a bad link. */
  badLink?: string;
}

function credentialsOf(request: FastifyRequest, source: CredentialSource): Credentials {
  switch (source) {
    case 'body':
      return credentialsFromBody(request.body as Record<string, unknown>);
    case 'query':
      return credentialsFromQuery((request.query ?? {}) as Record<string, unknown>, request.headers.authorization);
    case 'user_id+token':
      return credentialsFromUserIdToken((request.query ?? {}) as Record<string, unknown>);
    case 'signed':
    case 'none':
      throw new Error('no credentials to read');
  }
}

/**
 * The one way a request is admitted, whatever its surface (PRODUCT.md §4):
 * credentials read from where the surface takes them, resolved by the
 * AuthService, failures counted per client IP and, over the limit, unknown
 * credentials from that IP answered 429 before any read; the resolved
 * principal's request limit; its kind and permission (1015). Built once in
 * the composition root (app.ts) and handed to every surface.
 */
export class Admission {
  constructor(
    readonly auth: AuthService,
    readonly limits: RequestLimits,
  ) {}

  /**
   * The principal the request may act as, at once when its credentials were
   * resolved in the last few seconds, else a promise; throws (or rejects
   * with) the AppError to answer. `credentials: 'none'` is limited per IP
   * and answers null.
   */
  admit(request: FastifyRequest, rule: AdmissionRule): Principal | null | Promise<Principal | null> {
    const ip = request.ip;
    if (rule.credentials === 'none') {
      this.limits.withoutCredentials(ip);
      return null;
    }
    if (rule.credentials === 'signed') return this.signed(request, rule);
    // Missing or malformed credentials (1014, 1000, 1002) are thrown here: no lookup, nothing counted.
    const creds = credentialsOf(request, rule.credentials);
    let found: Principal | Promise<Principal>;
    try {
      found = this.auth.admit(creds, () => this.limits.checkUnknownFrom(ip));
    } catch (err) {
      throw this.counted(err, ip);
    }
    if (found instanceof Promise) {
      return found.then(
        (principal) => this.allow(principal, rule),
        (err: unknown) => {
          throw this.counted(err, ip);
        },
      );
    }
    return this.allow(found, rule);
  }

  /** A signed link: held back like unknown credentials, limited per IP, a bad one counted like credentials that did not resolve. */
  private async signed(request: FastifyRequest, rule: AdmissionRule): Promise<null> {
    const ip = request.ip;
    this.limits.checkUnknownFrom(ip);
    this.limits.withoutCredentials(ip);
    if (!rule.verify || !(await rule.verify(request))) {
      this.limits.failed(ip);
      throw fail(1015, rule.badLink ?? 'missing, bad or expired link');
    }
    return null;
  }

  /** Credentials that were sent and did not resolve (1014) are counted against the IP. */
  private counted(err: unknown, ip: string): unknown {
    if (err instanceof AppError && err.code === 1014) this.limits.failed(ip);
    return err;
  }

  private allow(principal: Principal, rule: AdmissionRule): Principal {
    // The limit before the permission (credentials, limits, permission): a principal over its limit is held back
    // whatever it asks, and requests it may not make count too, so probing what is allowed costs the same.
    this.limits.principal(principal.userId);
    if (!rule.principals.includes(principal.kind)) {
      throw fail(1015, rule.kindRefusal ? rule.kindRefusal(principal.kind) : defaultKindRefusal(principal.kind, rule));
    }
    if (rule.permission && !principal.permissions.has(rule.permission)) throw fail(1015, `missing permission ${rule.permission}`);
    const refused = rule.refuse?.(principal);
    if (refused) throw fail(1015, refused);
    return principal;
  }
}

function defaultKindRefusal(kind: PrincipalKind, rule: AdmissionRule): string {
  return kind === 'switch'
    ? 'switch credentials may only ingest events, ask route/decide, read switch/config and switch/state, and read the stream'
    : `${kind} principals may not call ${rule.module}/${rule.name}`;
}

function isNonEmptyObject(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length > 0;
}

/**
 * A surface's admission as a Fastify hook (preValidation for operations, so
 * the body is parsed; onRequest for surfaces that take credentials from the
 * query, so a refused upload is not read). `jsonBody`: the 1047 check of a
 * JSON operation first. The principal becomes `request.principal`. A
 * callback hook, not an async one: credentials resolved in the last few
 * seconds are admitted without a promise and its microtasks.
 */
export function admissionHook(rule: AdmissionRule, admission: Admission, opts: { jsonBody?: boolean; refusal?: (err: unknown) => unknown } = {}) {
  const refusal = opts.refusal ?? ((err: unknown) => err);
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    let found: Principal | null | Promise<Principal | null>;
    try {
      if (opts.jsonBody && !isNonEmptyObject(request.body)) throw fail(1047, 'the body must be a non-empty JSON object');
      found = admission.admit(request, rule);
    } catch (err) {
      return done(refusal(err) as FastifyError);
    }
    // done() outside the try: what it runs next (validation, the handler) must not be answered twice.
    if (!(found instanceof Promise)) {
      if (found) request.principal = found;
      return done();
    }
    found.then(
      (principal) => {
        if (principal) request.principal = principal;
        done();
      },
      (err: unknown) => done(refusal(err) as FastifyError),
    );
  };
}
