import net from 'node:net';

/** A port the kernel just gave out and released: free now, though another listener may take it before it is bound. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * `start` on a free port, again on another one (up to 5 tries) when it
 * failed with EADDRINUSE: freePort releases the port before the server binds
 * it, and another test file's listener (a webhook receiver, a bench server)
 * can take it in between.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (err) {
      if (attempt >= 5 || !/EADDRINUSE/.test(String(err))) throw err;
    }
  }
}
