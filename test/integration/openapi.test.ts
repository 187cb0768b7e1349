import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../client/openapi-document.js';

interface OperationObject {
  operationId?: string;
  description?: string;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: { anyOf?: Array<Record<string, unknown>> } }> }>;
}

/** The document GET /openapi.json serves and `npm run client:generate` reads, built in-process. */
describe('OpenAPI document', () => {
  let doc: Record<string, unknown>;
  let operations: Array<[string, OperationObject]>;

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

  it('lists the operations as POST /api/v2/<module>/<operation> with unique operation ids', () => {
    expect(operations.length).toBeGreaterThanOrEqual(7);
    for (const [key] of operations) expect(key).toMatch(/^POST \/api\/v2\/[A-Za-z]+\/[A-Za-z]+$/);
    const ids = operations.map(([, op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives every operation a required JSON request body', () => {
    for (const [key, op] of operations) {
      expect(op.requestBody?.required, key).toBe(true);
      expect(op.requestBody?.content?.['application/json']?.schema, key).toBeTypeOf('object');
    }
  });

  it('gives every operation a success schema next to the error envelope', () => {
    for (const [key, op] of operations) {
      const variants = op.responses?.['200']?.content?.['application/json']?.schema?.anyOf ?? [];
      const success = variants.find((v) => (v.properties as Record<string, { enum?: unknown[] }> | undefined)?.status?.enum?.[0] === 'success');
      const error = variants.find((v) => typeof v.$ref === 'string');
      expect(success, `${key} has no success schema`).toBeDefined();
      expect(error, `${key} does not reference the error envelope`).toBeDefined();
    }
  });

  it("names every operation's error codes in its description", () => {
    for (const [key, op] of operations) {
      const m = /Error codes: ([\d, ]+)/.exec(op.description ?? '');
      expect(m, `${key} description lacks its error codes`).not.toBeNull();
      const codes = m![1]!.split(',').map((c) => Number(c.trim()));
      expect(codes.length, key).toBeGreaterThan(0);
      for (const c of codes) expect(c, key).toBeGreaterThanOrEqual(1000);
    }
  });
});
