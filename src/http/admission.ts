import type { FastifyError, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { AuthService } from '../auth/auth.service.js';
import { credentialsFromBody } from '../auth/credentials.js';
import type { Permission } from '../auth/permissions.js';
import type { Principal, PrincipalKind } from '../auth/principal.js';
import { fail } from '../errors/catalogue.js';
import type { RateLimiter } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** What an operation asks of its caller (operation.ts). */
export interface Admission {
  module: string;
  name: string;
  /** false: no credentials (login). */
  auth?: false;
  principals: readonly PrincipalKind[];
  permission?: Permission;
}

function isNonEmptyObject(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length > 0;
}

function rateKey(body: Record<string, unknown>, ip: string): string {
  if (typeof body.ssid === 'string') return `s:${body.ssid}`;
  if (typeof body.token === 'string') return `t:${body.token}`;
  return `ip:${ip}`;
}

/**
 * An operation's preValidation hook: a non-empty JSON object body (1047),
 * the rate limit, then the credentials (1014) and whether their principal
 * may call the operation (1015); the principal becomes `request.principal`.
 * A callback hook, not an async one: credentials resolved in the last few
 * seconds (auth.admit, most requests) are admitted without a promise and
 * its microtasks; the others wait for the database.
 */
export function admissionHook(op: Admission, deps: { auth: AuthService; limiter: RateLimiter }) {
  const admit = (request: FastifyRequest, principal: Principal) => {
    if (!op.principals.includes(principal.kind)) {
      throw fail(
        1015,
        principal.kind === 'switch'
          ? 'switch credentials may only ingest events, ask route/decide, read switch/config and switch/state, and read the stream'
          : `${principal.kind} principals may not call ${op.module}/${op.name}`,
      );
    }
    if (op.permission && !principal.permissions.has(op.permission)) throw fail(1015, `missing permission ${op.permission}`);
    request.principal = principal;
  };

  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    let pending: Promise<Principal> | undefined;
    try {
      if (!isNonEmptyObject(request.body)) throw fail(1047, 'the body must be a non-empty JSON object');
      const b = request.body;
      deps.limiter.check(rateKey(b, request.ip));
      if (op.auth !== false) {
        const found = deps.auth.admit(credentialsFromBody(b));
        if (found instanceof Promise) pending = found;
        else admit(request, found);
      }
    } catch (err) {
      return done(err as FastifyError);
    }
    // done() outside the try: what it runs next (validation, the handler) must not be answered twice.
    if (!pending) return done();
    pending.then(
      (principal) => {
        try {
          admit(request, principal);
        } catch (err) {
          return done(err as FastifyError);
        }
        done();
      },
      (err: FastifyError) => done(err),
    );
  };
}
