import type { FastifyInstance } from 'fastify';

/**
 * The first answer of an event-loop turn is written at once; the others of
 * the same turn wait for its check phase, after the poll phase has run every
 * request that arrived together, and then leave back to back.
 *
 * Why: each write that finds the client asleep has the kernel wake it, and
 * between two cores of a virtual machine a wake-up is an interrupt to the
 * other core, paid by the writer. Written one by one, the answers of a
 * server under load wake the client about once per answer; written
 * together, about twice per turn. Measured with wrk (50 connections, 1 M
 * contacts) on the 2-core machine, Directory/getInfo: 81.5 → 38.2 µs of
 * server CPU per request, 0.26 → 0.55 × a bare echo (docs/benchmarks.md,
 * "Answers written together").
 *
 * What it costs: nothing with one request in flight, whose answer is the
 * first of its turn (one connection: p50 unchanged); under load an answer
 * waits for the rest of its turn's requests, which the doubled throughput
 * repays (p99 at 50 connections fell). Large answers written as pieces
 * (operation.ts sendPieces) and the event stream write on the socket
 * themselves and are not deferred.
 *
 * Registered before the routes, as the app's last onSend hook: it runs after
 * the metrics' error count; compression, hooked per route, runs after it.
 */
export function installWriteBatching(app: FastifyInstance): void {
  let writtenThisTurn = false;
  const turnEnds = () => {
    writtenThisTurn = false;
  };
  app.addHook('onSend', (_request, _reply, payload, done) => {
    if (writtenThisTurn) return void setImmediate(done, null, payload);
    writtenThisTurn = true;
    setImmediate(turnEnds);
    done(null, payload);
  });
}
