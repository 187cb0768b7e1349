import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Answer } from './answer.js';
import { csvText } from './csv.js';
import { successEnvelope } from './envelope.js';
import { sendAnswer, type AnswerCheck } from './send-answer.js';

/** One route per answer, sent by sendAnswer over real HTTP; `check` refuses any answer whose data is not an array. */
const dataIsArray: AnswerCheck = (sent) => {
  if (!Array.isArray((sent as { data?: unknown }).data)) throw new Error('data must be an array');
};

let app: FastifyInstance;
let base = '';
const answers = new Map<string, () => object>();
let released: Buffer[] = [];

beforeAll(async () => {
  app = Fastify();
  app.get('/:name', async (request, reply) => {
    const { name } = request.params as { name: string };
    return sendAnswer(request, reply, answers.get(name)!(), name.startsWith('checked') ? dataIsArray : null);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(() => app.close());

const get = (name: string, headers: Record<string, string> = {}) => fetch(`${base}/${name}`, { headers });
/** `n` bytes of JSON array text in chunks of 64 kB: `[0,0,…,0]`. */
function arrayChunks(n: number): Buffer[] {
  const text = `[${Array.from({ length: Math.floor(n / 2) }, () => '0').join(',')}]`;
  const out: Buffer[] = [];
  for (let i = 0; i < text.length; i += 65536) out.push(Buffer.from(text.slice(i, i + 65536)));
  return out;
}

describe('sendAnswer: the one way out', () => {
  it('every kind of answer reads back as the same JSON as its plain form', async () => {
    const small = arrayChunks(1000);
    const large = arrayChunks(600_000);
    const expected = (chunks: Buffer[]) => successEnvelope({ data: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
    answers.set('plain', () => ({ data: [1, 2] }));
    answers.set('text', () => Answer.envelopeText('{"status":"success","code":200,"data":[1,2]}'));
    answers.set('pieces-small', () => Answer.data(small));
    answers.set('pieces-large', () => Answer.data(large));
    answers.set('stream', () => Answer.data({ chunks: large, release: (c) => released.push(c) }));
    released = [];
    expect(await (await get('plain')).json()).toEqual({ status: 'success', code: 200, data: [1, 2] });
    expect(await (await get('text')).json()).toEqual({ status: 'success', code: 200, data: [1, 2] });
    expect(await (await get('pieces-small')).json()).toEqual(expected(small));
    // Without compression a large answer goes as its pieces, with its length; with it, streamed through the compressor.
    const big = await get('pieces-large', { 'accept-encoding': 'identity' });
    expect(big.headers.get('content-length')).toBe(String(Buffer.concat(large).length + '{"status":"success","code":200,"data":}'.length));
    expect(await big.json()).toEqual(expected(large));
    const gz = await get('pieces-large', { 'accept-encoding': 'gzip' });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(await gz.json()).toEqual(expected(large));
    expect(await (await get('stream')).json()).toEqual(expected(large));
    // Every chunk of the stream was given back once written, each once.
    expect(released).toHaveLength(large.length);
    expect(new Set(released).size).toBe(large.length);
  });

  it('a shared view is encoded once and sent as its plain encoding; an unfrozen one is refused', async () => {
    const view = Object.freeze({ data: Object.freeze([{ key: 1, wait: 3 }]) });
    answers.set('view', () => Answer.sharedView(view));
    const first = await (await get('view')).text();
    const second = await (await get('view')).text();
    expect(first).toBe(JSON.stringify(successEnvelope(view)));
    expect(second).toBe(first);
    expect(() => Answer.sharedView({ data: [] })).toThrow(/frozen/);
  });

  it('a streamed answer is checked while it is sent: a broken one never reaches the client whole', async () => {
    const chunks = [Buffer.from('{"not":'), Buffer.from('"an array"}')];
    answers.set('checked-stream-bad', () => Answer.data({ chunks }));
    answers.set('checked-stream-good', () => Answer.data({ chunks: [Buffer.from('[1,'), Buffer.from('2]')] }));
    answers.set('checked-pieces-bad', () => Answer.data(chunks));
    expect(await (await get('checked-stream-good')).json()).toEqual({ status: 'success', code: 200, data: [1, 2] });
    // Headers were sent before the last chunk was checked: the connection is cut, so the body cannot be read whole.
    await expect(get('checked-stream-bad').then((r) => r.text())).rejects.toThrow();
    // Pieces are checked before anything is sent: a 500.
    expect((await get('checked-pieces-bad')).status).toBe(500);
  });

  it('CSV: rows in memory take every row’s columns; rows pulled page by page take the header; the text streams in pieces', async () => {
    const rows = [
      { agentId: 1, breaks: { lunch: 60 } },
      { agentId: 2, breaks: { coffee: 5 } },
    ];
    answers.set('csv', () => Answer.csv(['agentId'], rows));
    const res = await get('csv');
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const text = await res.text();
    expect(text).toBe('agentId,breaks.lunch,breaks.coffee\r\n1,60,\r\n2,,5\r\n');
    expect(await csvText(['agentId'], rows)).toBe(text);
    async function* pages() {
      for (let i = 0; i < 2500; i++) yield { callId: `c${i}`, calledBack: { at: i % 2 ? i : null } };
    }
    answers.set('csv-pages', () => Answer.csv(['callId', 'calledBack.at'], pages()));
    const lines = (await (await get('csv-pages')).text()).split('\r\n');
    expect(lines[0]).toBe('callId,calledBack.at');
    expect(lines.slice(1, -1)).toEqual(Array.from({ length: 2500 }, (_, i) => `c${i},${i % 2 ? i : ''}`));
    expect(lines.at(-1)).toBe('');
    // An empty answer is its header.
    answers.set('csv-empty', () => Answer.csv(['a', 'b'], []));
    expect(await (await get('csv-empty')).text()).toBe('a,b\r\n');
  });
});
