import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

/**
 * The operations the app serves, read from its own OpenAPI document, so the
 * reliability suites cover every operation as soon as it is registered —
 * nobody has to remember to add it here.
 */

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  additionalProperties?: boolean | JsonSchema;
  $ref?: string;
  [k: string]: unknown;
};

export interface ApiOperation {
  /** `POST` path, e.g. `/api/v2/account/updateSettings`. */
  path: string;
  /** `module/name`, as PRODUCT.md §4 names it. */
  id: string;
  module: string;
  name: string;
  /** false for operations that take no credentials (auth/login). */
  auth: boolean;
  /** Principal kinds allowed (client, agent, switch). */
  callers: string[];
  permission: string | undefined;
  body: JsonSchema;
  /** Where the credentials go: the JSON body, or the query (a surface whose body is a file, e.g. contactList/importCsv). */
  credentialsIn: 'body' | 'query';
  errors: number[];
}

/** Fields every authenticated body carries; the fuzzers treat them separately. */
export const CREDENTIAL_FIELDS = new Set(['ssid', 'userId', 'token']);

export function operationsOf(app: FastifyInstance): ApiOperation[] {
  const doc = app.swagger() as {
    paths: Record<string, Record<string, { description?: string; requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>>;
  };
  const ops: ApiOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const post = item.post;
    const m = /^\/api\/v2\/([^/]+)\/([^/]+)$/.exec(path);
    if (!post || !m) continue;
    const description = post.description ?? '';
    const callers =
      /Callers: ([^.]+)\./
        .exec(description)?.[1]
        ?.split(',')
        .map((s) => s.trim()) ?? [];
    ops.push({
      path,
      id: `${m[1]}/${m[2]}`,
      module: m[1]!,
      name: m[2]!,
      auth: !/No credentials\./.test(description),
      callers,
      permission: /Permission: `([^`]+)`/.exec(description)?.[1],
      body: post.requestBody?.content?.['application/json']?.schema ?? { type: 'object', properties: {} },
      credentialsIn: post.requestBody && !post.requestBody.content?.['application/json'] ? 'query' : 'body',
      errors: (/Error codes: ([\d, ]+)/.exec(description)?.[1] ?? '')
        .split(',')
        .map((s) => Number(s.trim()))
        .filter((n) => n > 0),
    });
  }
  return ops.sort((a, b) => a.id.localeCompare(b.id));
}

/** The body's own fields (credentials left out). */
export function ownFields(op: ApiOperation): Array<[string, JsonSchema]> {
  return Object.entries(op.body.properties ?? {}).filter(([k]) => !CREDENTIAL_FIELDS.has(k));
}

/** The alternatives of a union, or the schema itself. */
export function alternatives(s: JsonSchema): JsonSchema[] {
  const alts = s.anyOf ?? s.oneOf;
  return alts ? alts.flatMap(alternatives) : [s];
}

export function typesOf(s: JsonSchema): string[] {
  return alternatives(s).flatMap((a) => {
    if (a.enum || a.const !== undefined) return [typeof (a.enum?.[0] ?? a.const)];
    return Array.isArray(a.type) ? a.type : a.type ? [a.type] : [];
  });
}

/**
 * The operations of the current build, for declaring one test per operation
 * at collection time (an app on a throw-away in-memory database).
 */
export async function collectOperations(): Promise<ApiOperation[]> {
  const { buildApp } = await import('../../../src/app.js');
  const { loadConfig } = await import('../../../src/config/config.js');
  const { SqliteDatabase } = await import('../../../src/db/sqlite.js');
  const { migrate } = await import('../../../src/db/migrate.js');
  const db = new SqliteDatabase(':memory:');
  try {
    await migrate(db);
    const { app } = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), db });
    await app.ready();
    const ops = operationsOf(app);
    await app.close();
    return ops;
  } finally {
    await db.close();
  }
}

export type IdKind = 'agent' | 'group' | 'role' | 'did' | 'contact' | 'call' | 'token';
const FIELD_KINDS: Array<[RegExp, IdKind]> = [
  [/^(agentid|agentids|agent_id|agent|parent|agents|supervisor)$/i, 'agent'],
  [/^(groupid|group_id|group|groups|defaultgroupid)$/i, 'group'],
  [/^(role|roleid|role_id)$/i, 'role'],
  [/^(did|dids|cli)$/i, 'did'],
  [/^(contact|cn|caller|mobile|number)$/i, 'contact'],
  [/^(callid|call_id)$/i, 'call'],
  [/^(revoke)$/i, 'token'],
];

/** Which kind of record a body field names, by its name (agentId, groupid, cn, …). */
export function idKindOf(field: string): IdKind | undefined {
  return FIELD_KINDS.find(([re]) => re.test(field))?.[1];
}

/**
 * Asserts that every operation of `ids` is registered. A suite that needs
 * an operation says so with this rather than skipping what it cannot call:
 * a renamed or removed operation fails the suite instead of quietly
 * dropping its coverage.
 */
export function expectRegistered(ops: readonly ApiOperation[], ids: readonly string[]): void {
  const have = new Set(ops.map((o) => o.id));
  expect(
    ids.filter((id) => !have.has(id)),
    'operations this suite exercises that the app does not register',
  ).toEqual([]);
}
