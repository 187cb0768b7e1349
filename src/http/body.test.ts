import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { installBodyParsing } from './body.js';

/** What the parser makes of a body: its own keys, the parsed value, or the error it answered. */
async function parsed(payload: string): Promise<{ keys?: string[]; body?: unknown; error?: string }> {
  const app = Fastify();
  installBodyParsing(app);
  app.post('/', async (request) => ({ keys: Object.getOwnPropertyNames(request.body ?? {}), body: request.body ?? null }));
  app.setErrorHandler(async (err: Error & { code?: unknown }) => ({ error: `${String(err.code)} ${err.message}` }));
  const res = await app.inject({ method: 'POST', url: '/', payload, headers: { 'content-type': 'application/json' } });
  await app.close();
  return res.json();
}

describe('request bodies (installBodyParsing)', () => {
  it('parses a plain body (the fast way) as secure-json-parse would', async () => {
    expect(await parsed('{"ssid":"abc","cn":"919811100042"}')).toEqual({ keys: ['ssid', 'cn'], body: { ssid: 'abc', cn: '919811100042' } });
    expect(await parsed('{"note":"a constructor of __proto__ values"}')).toEqual({ keys: ['note'], body: { note: 'a constructor of __proto__ values' } });
  });

  it('drops __proto__ keys and constructor keys holding a prototype, spelled out or escaped (secure-json-parse)', async () => {
    expect((await parsed('{"a":1,"__proto__":{"x":1}}')).keys).toEqual(['a']);
    expect((await parsed('{"a":1,"\\u005f_proto__":{"x":1}}')).keys).toEqual(['a']);
    expect((await parsed('{"a":1,"constructor":{"prototype":{"x":1}}}')).keys).toEqual(['a']);
    expect((await parsed('{"a":1,"\\u0063onstructor":{"prototype":{"x":1}}}')).keys).toEqual(['a']);
    expect((await parsed('{"a":1,"constructor":{"x":1}}')).keys).toEqual(['a', 'constructor']);
  });

  it('refuses NUL (escaped), accepts a BOM, answers malformed JSON with an error', async () => {
    expect((await parsed('{"a":"x\\u0000"}')).error).toMatch(/^1000 /);
    expect((await parsed('{"a":"x\\u0041"}')).body).toEqual({ a: 'xA' });
    expect((await parsed('\ufeff{"a":1}')).body).toEqual({ a: 1 });
    expect((await parsed('{"a":')).error).toBeDefined();
  });
});
