import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../test/support/wait-for.js';
import { answerClientError } from './client-error-answer.js';

/** A connected pair of real sockets: the server's side, and what the client side received until it closed. */
async function connection(): Promise<{ server: Socket; received: () => string; closed: () => boolean; close: () => void }> {
  const listener = createServer();
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const accepted = once(listener, 'connection') as Promise<[Socket]>;
  const client = connect((listener.address() as AddressInfo).port, '127.0.0.1');
  let text = '';
  let ended = false;
  client.on('data', (chunk: Buffer) => (text += chunk.toString()));
  client.on('close', () => (ended = true));
  client.on('error', () => undefined);
  const [server] = await accepted;
  server.on('error', () => undefined);
  return { server, received: () => text, closed: () => ended, close: () => (client.destroy(), listener.close()) };
}

const timedOut = (): NodeJS.ErrnoException => Object.assign(new Error('request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });

describe('answerClientError', () => {
  const open: Array<() => void> = [];
  afterEach(() => open.splice(0).forEach((close) => close()));

  it('answers a request the parser gave up on with the error body, and closes the connection', async () => {
    const c = await connection();
    open.push(c.close);
    answerClientError(timedOut(), c.server);
    await waitFor(c.closed, 'the connection closed');
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(c.received()).toContain('"/errors/request-timeout"');
  });

  it('writes no second answer for a request answered already (a 401 before its body arrived), and closes the connection', async () => {
    const c = await connection();
    open.push(c.close);
    // As Node's HTTP server leaves it: the socket's current response, its headers sent.
    Object.assign(c.server, { _httpMessage: { headersSent: true } });
    answerClientError(timedOut(), c.server);
    await waitFor(c.closed, 'the connection closed');
    expect(c.received()).toBe('');
  });
});
