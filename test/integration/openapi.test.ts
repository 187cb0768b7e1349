import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../client/openapi-document.js';

interface JsonSchema {
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema;
  [k: string]: unknown;
}
interface MediaObject {
  schema?: { anyOf?: Array<Record<string, unknown>> };
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface ResponseObject {
  $ref?: string;
  description?: string;
  content?: Record<string, MediaObject>;
}
interface OperationObject {
  operationId?: string;
  description?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { required?: boolean; content?: Record<string, MediaObject> };
  responses?: Record<string, ResponseObject>;
}

const examplesOf = (m: MediaObject): unknown[] => [...(m.example !== undefined ? [m.example] : []), ...Object.values(m.examples ?? {}).map((e) => e.value)];

/** The operations as the app declares them (module, name, errors), built by its composition root. */
async function declaredOperations() {
  const { buildApp } = await import('../../src/app.js');
  const { allOperations } = await import('../../src/modules/index.js');
  const { SqliteDatabase } = await import('../../src/db/sqlite.js');
  const { migrate } = await import('../../src/db/migrate.js');
  const { loadConfig } = await import('../../src/config/config.js');
  const db = new SqliteDatabase(':memory:');
  try {
    await migrate(db);
    const { app, services } = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), db });
    await app.close();
    return allOperations(services);
  } finally {
    await db.close();
  }
}

/** The document GET /openapi.json serves and `npm run client:generate` reads, built in-process. */
describe('OpenAPI document', () => {
  let doc: Record<string, unknown>;
  let operations: Array<[string, OperationObject]>;
  /** POSTs that are surfaces (http/surface.ts), not JSON operations: the CSV upload. */
  const POST_SURFACES = ['POST /api/v2/contactList/importCsv'];
  const posts = () => operations.filter(([key]) => key.startsWith('POST ') && !POST_SURFACES.includes(key));

  beforeAll(async () => {
    doc = await buildOpenApiDocument();
    const paths = doc.paths as Record<string, Record<string, OperationObject>>;
    operations = Object.entries(paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, OperationObject]),
    );
  });

  it('validates as OpenAPI 3.1 (swagger-parser against the official 3.1 schema)', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const api = await SwaggerParser.validate(structuredClone(doc) as never);
    expect(api.info.title).toBe('Call Center Management API');
  });

  it('is the document the typed client was generated from (else: npm run client:generate)', () => {
    const generated = JSON.parse(readFileSync('client/generated/openapi.json', 'utf8')) as unknown;
    expect(generated, 'client/generated/ is stale: run `npm run client:generate` and commit both files').toEqual(doc);
  });

  it('rejects a broken document (the validator really validates)', async () => {
    const broken = structuredClone(doc) as { paths: Record<string, Record<string, unknown>> };
    const first = Object.values(broken.paths)[0]!;
    (first.post as Record<string, unknown>).responses = 'not an object';
    await expect(SwaggerParser.validate(broken as never)).rejects.toThrow(/responses/);
  });

  it('lists the operations as POST /api/v2/<module>/<operation> (and the stream) with unique operation ids', () => {
    expect(operations.length).toBeGreaterThanOrEqual(7);
    for (const [key] of posts()) expect(key).toMatch(/^POST \/api\/v2\/[A-Za-z]+\/[A-Za-z]+$/);
    expect(
      operations
        .map(([key]) => key)
        .filter((k) => !k.startsWith('POST ') || POST_SURFACES.includes(k))
        .sort(),
    ).toEqual(['GET /api/v2/CallReport/export', 'GET /api/v2/recording/directstream/{path}', 'GET /api/v2/stream', ...POST_SURFACES]);
    const ids = operations.map(([, op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives every operation a required JSON request body', () => {
    for (const [key, op] of posts()) {
      expect(op.requestBody?.required, key).toBe(true);
      expect(op.requestBody?.content?.['application/json']?.schema, key).toBeTypeOf('object');
    }
  });

  it('gives every operation a success schema next to the error envelope', () => {
    for (const [key, op] of posts()) {
      const variants = op.responses?.['200']?.content?.['application/json']?.schema?.anyOf ?? [];
      const success = variants.find((v) => (v.properties as Record<string, { enum?: unknown[] }> | undefined)?.status?.enum?.[0] === 'success');
      const error = variants.find((v) => (v.allOf as Array<{ $ref?: string }> | undefined)?.[0]?.$ref === '#/components/schemas/ErrorEnvelope');
      expect(success, `${key} has no success schema`).toBeDefined();
      expect(error, `${key} does not reference the error envelope`).toBeDefined();
    }
  });

  it('names the error envelope (no generated def-N names)', () => {
    const schemas = Object.keys((doc.components as { schemas: object }).schemas);
    expect(schemas).toContain('ErrorEnvelope');
    expect(schemas.filter((n) => /^def-\d+$/.test(n))).toEqual([]);
  });

  it("documents every operation's error codes as an enum, each code with its meaning, exactly the codes it declares", async () => {
    const declared = new Map((await declaredOperations()).map((o) => [`POST /api/v2/${o.module}/${o.name}`, o]));
    for (const [key, op] of posts()) {
      const variants = op.responses?.['200']?.content?.['application/json']?.schema?.anyOf ?? [];
      const error = variants.find((v) => Array.isArray(v.allOf)) as { properties: { code: { enum: number[]; 'x-enumDescriptions': Record<string, string> } } };
      const { enum: codes, 'x-enumDescriptions': meanings } = error.properties.code;
      // 1010 is answered with HTTP 503 (components.responses.DatabaseUnavailable), on every operation.
      expect(codes, key).toEqual(declared.get(key)!.errors.filter((c) => c !== 1010));
      for (const c of codes) {
        expect(meanings[String(c)], `${key}: code ${c} has no meaning`).toBeTypeOf('string');
        expect(meanings[String(c)], `${key}: code ${c} is not in its catalogue table`).not.toMatch(/^Error\b/);
      }
      for (const status of ['413', '429', '500', '503']) expect(op.responses?.[status], `${key} ${status}`).toBeDefined();
    }
  });

  it('describes every answer (no "Default Response")', () => {
    expect(JSON.stringify(doc)).not.toContain('Default Response');
    for (const [key, op] of operations)
      for (const [status, r] of Object.entries(op.responses ?? {})) expect(r.description ?? r.$ref, `${key} ${status}`).toBeTruthy();
  });

  it('declares the credentials as security schemes, on every operation; auth/login takes none', () => {
    const schemes = (doc.components as { securitySchemes: Record<string, { type: string; description?: string }> }).securitySchemes;
    expect(Object.keys(schemes).sort()).toEqual(['bearer', 'ssid', 'token', 'userId']);
    for (const s of Object.values(schemes)) expect(s.description).toBeTruthy();
    for (const [key, op] of operations) {
      expect(op.security, key).toBeDefined();
      // auth/login takes no credentials; a recording's directstream URL carries its own signed token (an <audio> element sends nothing else).
      if (key === 'POST /api/v2/auth/login' || key === 'GET /api/v2/recording/directstream/{path}') expect(op.security).toEqual([]);
      else expect(op.security, key).toContainEqual({ userId: [], token: [] });
      for (const requirement of op.security!) for (const name of Object.keys(requirement)) expect(schemes[name], `${key}: ${name}`).toBeDefined();
    }
    // Only the surfaces with query credentials (the stream, the CSV export and upload) read the Authorization header.
    expect(
      operations
        .filter(([, op]) => op.security!.some((r) => 'bearer' in r))
        .map(([key]) => key)
        .sort(),
    ).toEqual(['GET /api/v2/CallReport/export', 'GET /api/v2/stream', ...POST_SURFACES]);
  });

  it('lists a described tag per module, and tags every operation with one of them', () => {
    const tags = doc.tags as Array<{ name: string; description?: string }>;
    for (const t of tags) expect(t.description, t.name).toBeTruthy();
    const names = new Set(tags.map((t) => t.name));
    const used = new Set<string>();
    for (const [key, op] of operations) {
      expect(op.tags, key).toHaveLength(1);
      expect(names.has(op.tags![0]!), `${key}: tag ${op.tags![0]} is not listed`).toBe(true);
      used.add(op.tags![0]!);
    }
    expect(
      [...names].filter((n) => !used.has(n)),
      'listed tags no operation uses',
    ).toEqual([]);
  });

  it('documents the event stream (GET /api/v2/stream) as Server-Sent Events', () => {
    const stream = Object.fromEntries(operations)['GET /api/v2/stream'];
    expect(stream?.responses?.['200']?.content?.['text/event-stream']).toBeDefined();
    expect(stream?.responses?.['401']).toBeDefined();
    expect(stream?.parameters?.map((p) => p.name)).toEqual(['lastEventId', 'last-event-id']);
  });

  it('gives every operation an example request and answer, each valid against its own schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ $id: 'doc', components: doc.components } as never);
    // Local references point into the document's components.
    const check = (where: string, schema: unknown, value: unknown) => {
      const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')) as object);
      expect(validate(value), `${where}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`).toBe(true);
    };
    const components = doc.components as { responses: Record<string, ResponseObject> };
    const resolve = (r: ResponseObject) => (r.$ref ? components.responses[r.$ref.split('/').pop()!]! : r);
    for (const [key, op] of operations) {
      const media = Object.entries(op.requestBody?.content ?? {});
      for (const [type, m] of media) {
        expect(examplesOf(m), `${key}: request ${type} has no example`).not.toHaveLength(0);
        for (const ex of examplesOf(m)) check(`${key} request`, m.schema, ex);
      }
      let answers = 0;
      for (const [status, r] of Object.entries(op.responses ?? {})) {
        for (const [type, m] of Object.entries(resolve(r).content ?? {})) {
          for (const ex of examplesOf(m)) {
            answers++;
            if (type === 'application/json') check(`${key} ${status}`, m.schema, ex);
            else expect(ex, `${key} ${status} ${type}`).toBeTypeOf('string');
          }
        }
      }
      expect(answers, `${key} has no example answer`).toBeGreaterThan(0);
    }
    const success = operations.filter(([, op]) =>
      examplesOf(op.responses?.['200']?.content?.['application/json'] ?? {}).some((e) => (e as { status?: string }).status === 'success'),
    );
    expect(success.length, 'operations (and the CSV upload) with a success example').toBe(posts().length + POST_SURFACES.length);
  });

  it('writes no text in angle brackets outside code spans (markdown renderers take it for HTML and drop it)', () => {
    const texts: Array<[string, string]> = [];
    const walk = (v: unknown, path: string) => {
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}/${i}`));
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) {
          if ((k === 'description' || k === 'summary') && typeof x === 'string') texts.push([`${path}/${k}`, x]);
          else if (k !== 'example' && k !== 'examples') walk(x, `${path}/${k}`);
        }
    };
    walk(doc, '#');
    expect(texts.length).toBeGreaterThan(100);
    for (const [where, text] of texts) expect(text.replace(/`[^`]*`/g, ''), where).not.toMatch(/<[A-Za-z/!?]/);
  });

  it('types the counters of analysis/hits', () => {
    const hits = Object.fromEntries(operations)['POST /api/v2/analysis/hits']!;
    const success = hits.responses!['200']!.content!['application/json']!.schema!.anyOf![0]! as { properties: { data: JsonSchema } };
    const [counters] = success.properties.data.additionalProperties!.anyOf!;
    expect(Object.keys(counters!.properties!)).toEqual(expect.arrayContaining(['TC', 'TH', 'AC', 'GH_UC', 'avgRingTime', 'avgHoldTime']));
    expect(JSON.stringify(doc)).not.toContain('"additionalProperties":{}');
  });

  it("names every operation's error codes in its description", () => {
    for (const [key, op] of posts()) {
      const m = /Error codes: ([\d, ]+)/.exec(op.description ?? '');
      expect(m, `${key} description lacks its error codes`).not.toBeNull();
      const codes = m![1]!.split(',').map((c) => Number(c.trim()));
      expect(codes.length, key).toBeGreaterThan(0);
      for (const c of codes) expect(c, key).toBeGreaterThanOrEqual(1000);
    }
  });
});
