import net from 'node:net';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { installWriteBatching } from './write-batching.js';

const THREE_PIPELINED = 'GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\nGET /3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';

/**
 * Rounds of three requests, each round sent in one TCP segment (HTTP
 * pipelining) on a new connection once the last round is answered: Node
 * parses a round's requests in one turn and runs their handlers before the
 * turn ends. What happened, in order, and the raw answers the client got.
 */
async function pipelined(batching: boolean, rounds: number, sharedRead = false): Promise<{ order: string[]; answers: string[] }> {
  const app = Fastify();
  if (batching) installWriteBatching(app);
  const order: string[] = [];
  // Like CoalescedRead: the requests of a turn wait for one read, run in the turn's check phase.
  let read: Promise<void> | null = null;
  const sharedReadOfTurn = () =>
    (read ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        read = null;
        order.push('read');
        setImmediate(() => order.push('next turn'));
        resolve();
      }),
    ));
  // A handler that answers synchronously: without batching its answer is written before the next request runs.
  app.get('/:n', async (request, reply) => {
    const n = (request.params as { n: string }).n;
    order.push(`handled ${n}`);
    if (sharedRead) await sharedReadOfTurn();
    const writeHead = reply.raw.writeHead.bind(reply.raw);
    reply.raw.writeHead = ((...args: Parameters<typeof writeHead>) => {
      order.push(`written ${n}`);
      return writeHead(...args);
    }) as typeof reply.raw.writeHead;
    return reply.send({ n });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { port } = app.server.address() as AddressInfo;
    const answers: string[] = [];
    for (let r = 0; r < rounds; r++) {
      answers.push(
        await new Promise<string>((resolve, reject) => {
          const socket = net.connect(port, '127.0.0.1', () => socket.write(THREE_PIPELINED));
          let got = '';
          socket.on('data', (chunk) => (got += chunk.toString()));
          socket.on('end', () => resolve(got));
          socket.on('error', reject);
        }),
      );
    }
    return { order, answers };
  } finally {
    await app.close();
  }
}

describe('answers written together (installWriteBatching)', () => {
  it("writes a turn's first answer at once and the others after every request of the turn has run, each whole and in order", async () => {
    const round = ['handled 1', 'written 1', 'handled 2', 'handled 3', 'written 2', 'written 3'];
    const batched = await pipelined(true, 2);
    // The second round is a later turn: its first answer is written at once again.
    expect(batched.order).toEqual([...round, ...round]);
    for (const answer of batched.answers) expect(answer.match(/\{"n":"\d"\}/g)).toEqual(['{"n":"1"}', '{"n":"2"}', '{"n":"3"}']);
    // The control: without it each answer is written before the next request runs.
    expect((await pipelined(false, 1)).order).toEqual(['handled 1', 'written 1', 'handled 2', 'written 2', 'handled 3', 'written 3']);
  });

  it('writes answers that a shared read made ready together at once, not a turn later', async () => {
    const batched = await pipelined(true, 1, true);
    expect(batched.order).toEqual(['handled 1', 'handled 2', 'handled 3', 'read', 'written 1', 'written 2', 'written 3', 'next turn']);
    expect(batched.answers[0]!.match(/\{"n":"\d"\}/g)).toEqual(['{"n":"1"}', '{"n":"2"}', '{"n":"3"}']);
  });
});
