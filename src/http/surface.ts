import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { Permission } from '../auth/permissions.js';
import type { Principal, PrincipalKind } from '../auth/principal.js';
import { AppError, type CatalogueModule } from '../errors/catalogue.js';
import { admissionHook, type Admission, type CredentialSource } from './admission.js';
import { isAuditExempt, type AuditExempt, type AuditRecorder, type AuditSpec, type OperationContext } from './operation.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The catalogue table that names codes from 1500 on (error-handler.ts reads it for schema failures). */
    errorModule?: CatalogueModule;
  }
}

/** What a surface's handler is given; `principal` is null for a signed link or no credentials. */
export interface SurfaceContext<Q, C extends CredentialSource> extends Omit<OperationContext<Q>, 'principal'> {
  principal: C extends 'none' | 'signed' ? null : Principal;
  reply: FastifyReply;
}

/**
 * An HTTP surface that is not a JSON operation (`POST /api/v2/<m>/<op>`
 * with a JSON body, operation.ts): the event stream, a CSV export, a
 * recording link, the vendor's v3 click-to-call, a CSV upload. It is
 * admitted by the same code as every operation (admission.ts): credentials
 * from where it declares (`credentials`), the same 1014 / 1015 answers, the
 * request limits, its `permission`, and — for one that `writes` — its
 * mandatory audit record, run through the same AuditRecorder.
 *
 * `input` is the surface's own input (query parameters, path segments),
 * read after admission; it is `ctx.body` for `prepare`, the audit spec and
 * the handler. The handler answers what Fastify sends (an object as JSON,
 * a stream, or the reply it has sent on).
 */
export interface Surface<Q, C extends CredentialSource> {
  method: 'GET' | 'POST';
  url: string;
  /** For messages and the audit record's `operation` (`module/name`). */
  module: string;
  name: string;
  credentials: C;
  /** Who may call it; default client and agent. */
  principals?: readonly PrincipalKind[];
  permission?: Permission;
  /** The 1015 message for a principal kind not listed. */
  kindRefusal?: (kind: PrincipalKind) => string;
  /** A permission rule beyond `permission`: the 1015 detail, or null to admit. */
  refuse?: (principal: Principal) => string | null;
  /** `credentials: 'signed'`: checks the link's own token (admission.ts); `badLink` is the 1015 detail when it fails. */
  verify?: (request: FastifyRequest) => Promise<boolean>;
  badLink?: string;
  /**
   * Refusals with their HTTP status (1014 → 401, 1015 → 403) rather than
   * 200: for links a browser, an `<audio>` element or an EventSource
   * follows, which read the status, not the envelope.
   */
  httpRefusals?: boolean;
  /**
   * The body is not parsed: `request.body` is the request's byte stream
   * (an upload: a text/csv body), read by the handler as it arrives.
   * Credentials then come from the query or the Authorization header, and
   * are checked before a byte of the body is read.
   */
  rawBody?: boolean;
  /** The catalogue table of codes from 1500 on. */
  errorModule?: CatalogueModule;
  /** Documentation only (OpenAPI): nothing is validated by it; `input` checks what the surface reads. */
  schema: FastifySchema;
  writes: boolean;
  audit?: AuditSpec<Q> | AuditExempt;
  input(request: FastifyRequest): Q;
  /** Work before the audited transaction opens (lookups the audit target depends on); `ctx.prepared`. */
  prepare?(ctx: SurfaceContext<Q, C>): Promise<unknown>;
  handler(ctx: SurfaceContext<Q, C>): Promise<unknown>;
}

export function defineSurface<Q, C extends CredentialSource>(surface: Surface<Q, C>): Surface<Q, C> {
  return surface;
}

export interface SurfaceDeps {
  admission: Admission;
  /** Required of a surface that writes (registration fails without it). */
  audit?: AuditRecorder;
}

const DEFAULT_PRINCIPALS: readonly PrincipalKind[] = ['client', 'agent'];

/** Admission refusals with their HTTP status (Surface.httpRefusals): 1014 → 401, 1015 → 403, malformed credentials (1000, 1002) → 400; same code and message. */
function withHttpStatus(err: unknown): unknown {
  if (err instanceof AppError && err.httpStatus === 200) {
    return new AppError(err.code, err.message, err.code === 1014 ? 401 : err.code === 1015 ? 403 : 400);
  }
  return err;
}

/** Registers a surface on the app (app.ts); a `rawBody` one in its own scope, whose only body parser hands over the stream. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function registerSurface(app: FastifyInstance, surface: Surface<any, CredentialSource>, deps: SurfaceDeps): void {
  const id = `${surface.module}/${surface.name}`;
  if (surface.writes && !surface.audit) throw new Error(`${id} writes but declares no audit (an AuditSpec, or why it is exempt)`);
  if (!surface.writes && surface.audit) throw new Error(`${id} declares an audit but writes nothing`);
  if (surface.writes && (surface.credentials === 'none' || surface.credentials === 'signed')) throw new Error(`${id} writes without credentials`);
  const audited = surface.writes && !isAuditExempt(surface.audit) ? deps.audit : undefined;
  if (surface.writes && !isAuditExempt(surface.audit) && !audited) throw new Error(`${id} writes but no audit recorder was given`);
  const rule = {
    module: surface.module,
    name: surface.name,
    credentials: surface.credentials,
    principals: surface.principals ?? DEFAULT_PRINCIPALS,
    permission: surface.permission,
    kindRefusal: surface.kindRefusal,
    refuse: surface.refuse,
    verify: surface.verify,
    badLink: surface.badLink,
  };
  const admit = admissionHook(rule, deps.admission, { jsonBody: false, refusal: surface.httpRefusals ? withHttpStatus : undefined });
  // The same machine-readable notes as an operation's (operation.ts): who may call it, and the permission it needs.
  const who = surface.credentials === 'none' || surface.credentials === 'signed' ? 'No credentials. ' : `Callers: ${rule.principals.join(', ')}. `;
  const needs = surface.permission ? `Permission: \`${surface.permission}\`. ` : '';
  const schema = { ...surface.schema, description: `${(surface.schema.description as string | undefined) ?? ''}\n\n${who}${needs}`.trim() };
  const route = (scope: FastifyInstance) =>
    scope.route({
      method: surface.method,
      url: surface.url,
      config: { errorModule: surface.errorModule ?? 'general' },
      schema,
      // The schema documents; `input` reads and checks. Answers are plain JSON, so the surface also works on an app without the envelope's schema.
      validatorCompiler: () => () => true,
      serializerCompiler: () => (data: unknown) => JSON.stringify(data),
      // Credentials outside the body are checked before it is read (onRequest); body credentials once it is parsed.
      ...(surface.credentials === 'body' ? { preValidation: admit } : { onRequest: admit }),
      handler: async (request, reply) => {
        const ctx = { principal: request.principal ?? null, body: surface.input(request), request, reply } as SurfaceContext<unknown, CredentialSource>;
        if (surface.prepare) ctx.prepared = await surface.prepare(ctx);
        if (!audited) return surface.handler(ctx);
        return audited.record(
          surface as Parameters<AuditRecorder['record']>[0],
          ctx as OperationContext<unknown>,
          async () => (await surface.handler(ctx)) as object,
        );
      },
    });
  if (!surface.rawBody) {
    route(app);
    return;
  }
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    route(scope);
  });
}
