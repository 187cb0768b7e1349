import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Permission } from '../auth/permissions.js';
import type { Principal, PrincipalKind } from '../auth/principal.js';
import { admissionHook, type Admission } from './admission.js';
import { sendAnswer, type AnswerCheck } from './send-answer.js';
import { successEnvelope } from './envelope.js';
import { AppError, messageOf, type CatalogueModule } from '../errors/catalogue.js';
import { BODY_SECURITY, EXAMPLE_SSID, errorAnswerSchema, httpErrorResponses } from './openapi.js';

export interface OperationContext<B> {
  principal: Principal;
  body: B;
  request: FastifyRequest;
  /** What the operation's `prepare` answered (work done before the audited transaction opened). */
  prepared?: unknown;
}

/**
 * What an audit record's `target.type` may be: PRODUCT.md §12's list, then
 * the objects §13 added after it (docs/audit.md says why they are types of
 * their own): a contact list and a contact of one (`contact` is a
 * Directory entry, keyed by number), a campaign.
 */
export const AUDIT_TARGET_TYPES = [
  'agent',
  'group',
  'role',
  'did',
  'contact',
  'account',
  'token',
  'webhook',
  'sticky',
  'dnc',
  'blacklist',
  'contactList',
  'listContact',
  'campaign',
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];
/** One target id, several (a bulk change), or none (a change of the whole list). */
export type AuditIds = string | number | null | ReadonlyArray<string | number>;
export interface AuditContext<B> extends OperationContext<B> {
  /** The handler's answer (in `created` and `changes`). */
  result?: object;
}

/**
 * How a writing operation is audited (src/modules/audit): the recorder reads
 * the target before and after the handler, inside one transaction with it,
 * and writes the changed fields (secrets redacted) as one record.
 */
export interface AuditSpec<B> {
  target: AuditTargetType;
  /** The target's id(s), known from the request (read before the handler runs). */
  id?(ctx: AuditContext<B>): AuditIds | Promise<AuditIds>;
  /** A create: the new target's id(s), from the answer. */
  created?(ctx: AuditContext<B>): AuditIds | Promise<AuditIds>;
  /**
   * The changes, where no stored state of the target shows them (a call
   * placed for an agent, the whole blacklist cleared); otherwise the
   * recorder compares the target's stored state before and after.
   */
  changes?(ctx: AuditContext<B>): Record<string, [unknown, unknown]> | undefined;
}

/** A writing operation that PRODUCT.md §12 leaves out of the audit trail, and why. */
export interface AuditExempt {
  exempt: string;
}

/** What the audit recorder reads of an operation or a surface (surface.ts): its name and its audit spec. */
export interface Audited {
  module: string;
  name: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  audit?: AuditSpec<any> | AuditExempt;
}

/** Writes the audit record of a writing operation (the audit module); `run` is the handler. */
export interface AuditRecorder {
  record<T extends object>(op: Audited, ctx: OperationContext<unknown>, run: () => Promise<T>): Promise<T>;
}

/**
 * An example of an operation for its documentation: a request body without
 * the credentials (an ssid is added) and the success answer's fields (the
 * envelope's status and code are added). The error example is derived from
 * `errors`. test/integration/openapi.test.ts checks every example of the
 * document against its schema.
 */
export interface OperationExamples<B extends TObject> {
  request: Static<B>;
  response: Record<string, unknown>;
}

/**
 * One API operation: `POST /api/v2/<module>/<name>`. Its body schema
 * validates the request and documents it; `response` documents the success
 * body (and is checked in tests); `errors` lists the codes it may answer,
 * documented with their meanings from the catalogue (`errorModule`'s table
 * for codes from 1500 on).
 */
export interface Operation<B extends TObject = TObject> {
  module: string;
  name: string;
  /** Further paths answering the same operation, e.g. `/api/v2/getDnc`. */
  aliases?: string[];
  summary: string;
  description?: string;
  /** false: no credentials (login). */
  auth?: false;
  /** Who may call it; default client and agent. Switch credentials must be listed explicitly. */
  principals?: readonly PrincipalKind[];
  permission?: Permission;
  /** Table that names codes from 1500 on: in schema-derived errors and in the documentation. */
  errorModule?: CatalogueModule;
  body: B;
  response: TSchema;
  errors: number[];
  /** What a code means for this operation, where the general meaning (http/openapi.ts) would mislead: e.g. 1014 of auth/login. */
  errorNotes?: Partial<Record<number, string>>;
  examples: OperationExamples<B>;
  /**
   * Whether a success changes stored state. Required, so a new operation
   * cannot forget it; a writing one must say how it is audited (`audit`).
   */
  writes: boolean;
  audit?: AuditSpec<Static<B>> | AuditExempt;
  /**
   * Work that must not run inside the audited transaction (a network call to
   * a webhook receiver): runs first, outside it; its answer reaches the
   * handler as `ctx.prepared`.
   */
  prepare?(ctx: OperationContext<Static<B>>): Promise<unknown>;
  /**
   * Wraps the whole change, outside its audited transaction: takes the
   * operation's 1501 locks first, so a request that finds them held answers
   * at once rather than waiting for the other request's transaction (on
   * SQLite that transaction holds the one connection).
   */
  around?(ctx: OperationContext<Static<B>>, run: () => Promise<object>): Promise<object>;
  handler(ctx: OperationContext<Static<B>>): Promise<object>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function isAuditExempt(a: AuditSpec<any> | AuditExempt | undefined): a is AuditExempt {
  return a !== undefined && 'exempt' in a;
}

export function defineOperation<B extends TObject>(op: Operation<B>): Operation<B> {
  return op;
}

const AuthFields = {
  ssid: Type.Optional(Type.String({ description: 'Session id (from auth/login). Not together with userId/token.' })),
  userId: Type.Optional(Type.Union([Type.String(), Type.Number()], { description: 'User id of the token form' })),
  token: Type.Optional(Type.String({ description: 'API token (from auth/token), with userId' })),
};

const DEFAULT_PRINCIPALS: readonly PrincipalKind[] = ['client', 'agent'];

export interface OperationDeps {
  /** The one admission path (admission.ts), built in the composition root. */
  admission: Admission;
  /** Check every success body against its declared schema (tests). */
  validateResponses: boolean;
  /** Records every writing operation's change (PRODUCT.md §12). */
  audit?: AuditRecorder;
}

export function registerOperation(app: FastifyInstance, op: Operation, deps: OperationDeps): void {
  const principals = op.principals ?? DEFAULT_PRINCIPALS;
  if (op.writes && !op.audit) throw new Error(`${op.module}/${op.name} writes but declares no audit (an AuditSpec, or why it is exempt)`);
  if (!op.writes && op.audit) throw new Error(`${op.module}/${op.name} declares an audit but writes nothing`);
  const audited = op.writes && !isAuditExempt(op.audit) ? deps.audit : undefined;
  const example = op.auth === false ? op.examples.request : { ssid: EXAMPLE_SSID, ...op.examples.request };
  const body =
    op.auth === false
      ? Type.Object(op.body.properties, { required: op.body.required ?? [], examples: [example] })
      : Type.Object({ ...AuthFields, ...op.body.properties }, { required: op.body.required ?? [], examples: [example] });
  const responseCheck = deps.validateResponses ? TypeCompiler.Compile(op.response) : null;
  // Tests: every answer checked against the declared schema as the client reads it (send-answer.ts, streamed ones too).
  const check: AnswerCheck | null = responseCheck
    ? (sent) => {
        if (responseCheck.Check(sent)) return;
        const first = [...responseCheck.Errors(sent)][0];
        throw new Error(`response of ${op.module}/${op.name} breaks its schema at ${first?.path}: ${first?.message}`);
      }
    : null;
  const errorModule = op.errorModule ?? 'general';
  const permissionNote = op.permission ? `Permission: \`${op.permission}\`. ` : '';
  const principalNote = op.auth === false ? 'No credentials. ' : `Callers: ${principals.join(', ')}. `;

  const admit = admissionHook(
    { module: op.module, name: op.name, credentials: op.auth === false ? 'none' : 'body', principals, permission: op.permission },
    deps.admission,
    { jsonBody: true },
  );

  const paths = [`/api/v2/${op.module}/${op.name}`, ...(op.aliases ?? [])];
  paths.forEach((url, i) => {
    app.route({
      method: 'POST',
      url,
      config: { errorModule },
      schema: {
        hide: i > 0,
        tags: [op.module],
        operationId: `${op.module}_${op.name}`,
        summary: op.summary,
        description: `${op.description ?? ''}\n\n${principalNote}${permissionNote}Error codes: ${op.errors.join(', ')} (HTTP 200, error envelope).`.trim(),
        security: op.auth === false ? [] : BODY_SECURITY,
        body,
        response: { 200: answerSchema(op), ...httpErrorResponses() },
      },
      preValidation: (request, reply, done) => admit(request, reply, done),
      handler: async (request, reply) => {
        const ctx: OperationContext<Static<TObject>> = { principal: request.principal!, body: request.body as Static<TObject>, request };
        if (op.prepare) ctx.prepared = await op.prepare(ctx);
        const change = () => (audited ? audited.record(op, ctx, () => op.handler(ctx)) : op.handler(ctx));
        const result = op.around ? await op.around(ctx, change) : await change();
        return sendAnswer(request, reply, result, check);
      },
    });
  });
}

/**
 * The documented HTTP 200 answer: the success envelope, or the error envelope
 * with one of the operation's codes (1010 comes with HTTP 503 and is
 * documented there, for every operation), with an example of each.
 */
function answerSchema(op: Operation): TSchema {
  const module = op.errorModule ?? 'general';
  const code = exampleErrorCode(op);
  const message = code === 1015 && op.permission ? `${messageOf(code)}: missing permission ${op.permission}` : messageOf(code, module);
  return Type.Union(
    [
      op.response,
      errorAnswerSchema(
        op.errors.filter((c) => c !== 1010),
        module,
        `${op.module}/${op.name} error`,
        op.errorNotes,
      ),
    ],
    {
      'x-response-description':
        'The success envelope (`status: "success"`), or the error envelope (`status: "error"`) with one of the codes of this operation: ' +
        'application errors are answered with HTTP 200.',
      'x-examples': {
        success: { summary: 'Success', value: successEnvelope(op.examples.response) },
        error: { summary: `Error ${code}`, value: { status: 'error', code, message } },
      },
    },
  );
}

const COMMON_CODES = new Set([1000, 1002, 1010, 1014, 1015, 1047]);

/** The code of the error example: the operation's most specific one. */
function exampleErrorCode(op: Operation): number {
  return op.errors.find((c) => !COMMON_CODES.has(c)) ?? (op.errors.includes(1015) ? 1015 : (op.errors.find((c) => c !== 1010) ?? 1014));
}

export { AppError };
