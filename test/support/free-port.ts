import { createServer } from 'node:net';

/**
 * A loopback port nobody listens on now: a callback sent there fails at once (connection
 * refused) until a test starts a receiver on it, and a server can be told it before it starts
 * (when its public URL must name the port).
 */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}
