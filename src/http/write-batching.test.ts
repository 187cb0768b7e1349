import net from 'node:net';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { installWriteBatching } from './write-batching.js';

/**
 * Two requests sent in one TCP segment (HTTP pipelining): Node parses both in
 * one turn and runs both handlers before the turn ends. What happened, in
 * order, and the raw answer the client got.
 */
async function pipelined(batching: boolean): Promise<{ order: string[]; answer: string }> {
  const app = Fastify();
  if (batching) installWriteBatching(app);
  const order: string[] = [];
  // A handler that answers synchronously: without batching its answer is written before the next request runs.
  app.get('/:n', (request, reply) => {
    const n = (request.params as { n: string }).n;
    order.push(`handled ${n}`);
    const writeHead = reply.raw.writeHead.bind(reply.raw);
    reply.raw.writeHead = ((...args: Parameters<typeof writeHead>) => {
      order.push(`written ${n}`);
      return writeHead(...args);
    }) as typeof reply.raw.writeHead;
    reply.send({ n });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { port } = app.server.address() as AddressInfo;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () =>
        socket.write('GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      );
      let got = '';
      socket.on('data', (chunk) => (got += chunk.toString()));
      socket.on('end', () => resolve(got));
      socket.on('error', reject);
    });
    return { order, answer };
  } finally {
    await app.close();
  }
}

describe('answers written together (installWriteBatching)', () => {
  it('writes the answers of one turn after every request of the turn has run, each answer whole and in order', async () => {
    const batched = await pipelined(true);
    expect(batched.order).toEqual(['handled 1', 'handled 2', 'written 1', 'written 2']);
    expect(batched.answer.match(/\{"n":"\d"\}/g)).toEqual(['{"n":"1"}', '{"n":"2"}']);
    // The control: without it the first answer is written before the second request runs.
    expect((await pipelined(false)).order).toEqual(['handled 1', 'written 1', 'handled 2', 'written 2']);
  });
});
