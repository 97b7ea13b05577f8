import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface Receiver {
  readonly url: string;
  readonly requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  close(): Promise<void>;
}

/** A real HTTP server on loopback that records requests and answers with `respond`. */
export async function startReceiver(
  respond: (req: { url: string; body: string }, res: ServerResponse) => void = (_r, res) => res.end('{}'),
): Promise<Receiver> {
  const requests: Receiver['requests'] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      respond({ url: req.url ?? '', body }, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
