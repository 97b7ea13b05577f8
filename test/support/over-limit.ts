// A body over the server's limit sent the way a careful client sends it, so that the early 413 is read, not lost.
import { connect } from 'node:net';

/** How long the server may take to answer before the body is sent anyway. */
export const RESPONSE_TIMEOUT_MS = 20_000;
const SLICE_BYTES = 64 * 1024;

/**
 * Sends a body over the limit on a connection of its own, the way a careful client does
 * (`Expect: 100-continue`): the server answers 413 from the Content-Length and closes, and a
 * client that wrote the body regardless meets a reset connection (EPIPE) that may drop the
 * answer before it is read. Node answers 100 Continue before the application has looked at the
 * request, so the body is held back until the application answers; only a server that gives
 * no answer for RESPONSE_TIMEOUT_MS is sent the body (in slices, stopping at an answer).
 */
export async function sendOverLimit(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; headers: Record<string, string>; responseText: string }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.setTimeout(2 * RESPONSE_TIMEOUT_MS, () => socket.destroy());
  let raw = '';
  let onData = () => {};
  socket.on('data', (chunk: Buffer) => {
    raw += chunk.toString('latin1');
    onData();
  });
  // Writing after the server closed fails; what it answered before closing is what counts.
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const final = () => raw.replace(/^HTTP\/1\.1 100 [^\r]*\r\n\r\n/, '');
  const head = Object.entries({ ...headers, host: `${hostname}:${port}`, 'content-length': String(body.length), expect: '100-continue', connection: 'close' })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.write(`${method} ${path} HTTP/1.1\r\n${head}\r\n`);
  await Promise.race([
    closed,
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, RESPONSE_TIMEOUT_MS);
      onData = () => {
        if (final() !== '') resolve(clearTimeout(timer));
      };
    }),
  ]);
  for (let at = 0; at < body.length && final() === '' && !socket.destroyed; at += SLICE_BYTES) {
    await new Promise<void>((resolve) => socket.write(body.subarray(at, at + SLICE_BYTES), () => resolve()));
  }
  socket.end();
  await closed;
  const response = final();
  const split = response.indexOf('\r\n\r\n');
  const status = /^HTTP\/1\.1 (\d{3})/.exec(response);
  if (!status || split < 0) throw new Error(`no response to a body of ${body.length} bytes (received ${JSON.stringify(raw.slice(0, 200))})`);
  const responseHeaders = Object.fromEntries(
    response
      .slice(0, split)
      .split('\r\n')
      .slice(1)
      .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const length = Number(responseHeaders['content-length'] ?? NaN);
  const rest = Buffer.from(response.slice(split + 4), 'latin1');
  return { status: Number(status[1]), headers: responseHeaders, responseText: (Number.isNaN(length) ? rest : rest.subarray(0, length)).toString('utf8') };
}
