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
 * Answers that are ready together already leave together: when two or more
 * are held in one run of callbacks (the requests a shared read answered,
 * CoalescedRead: Agent/live, queue/count), they are written as soon as that
 * run ends. Held for the check phase instead, answers that became ready in
 * the check phase itself would wait a whole turn, and the clients, sent one
 * answer, would have nothing to send meanwhile: Agent/live on SQLite fell
 * from 0.53 to 0.48 × (docs/benchmarks.md, "Answers ready together").
 *
 * What it costs: nothing with one request in flight, whose answer is the
 * first of its turn (one connection: p50 unchanged); under load an answer
 * waits for the rest of its turn's requests, which the doubled throughput
 * repays (p99 at 50 connections fell). Large answers written as pieces
 * (send-answer.ts writeCorked) and the event stream write on the socket
 * themselves and are not deferred.
 *
 * Registered before the routes, as the app's last onSend hook: it runs after
 * the metrics' error count; compression, hooked per route, runs after it.
 */
export function installWriteBatching(app: FastifyInstance): void {
  let writtenThisTurn = false;
  /** Answers waiting to be written, in the order they were ready. */
  let held: Array<() => void> = [];
  /** How many of `held` this run of callbacks added (counted until its next tick). */
  let heldThisRun = 0;
  const write = () => {
    const now = held;
    held = [];
    for (const w of now) w();
  };
  const turnEnds = () => {
    writtenThisTurn = false;
    write();
  };
  const runEnds = () => {
    if (heldThisRun >= 2) write();
    heldThisRun = 0;
  };
  app.addHook('onSend', (_request, _reply, payload, done) => {
    if (!writtenThisTurn) {
      writtenThisTurn = true;
      setImmediate(turnEnds);
      return done(null, payload);
    }
    held.push(() => done(null, payload));
    if (heldThisRun++ === 0) process.nextTick(runEnds);
  });
}
