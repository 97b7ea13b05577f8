import { createServer } from 'node:http';
import { callbackVerifier } from './verify-callback.mjs';

// WARDEN_API_KEY: the organization's API key, which reads its signing keys.
const verifyCallback = callbackVerifier({ wardenUrl: process.env.WARDEN_URL ?? 'http://127.0.0.1:3000', apiKey: process.env.WARDEN_API_KEY });
const port = Number(process.env.PORT ?? 3100);

// Warden's callback bodies are small: a larger body is no callback, and is not read whole.
const MAX_BODY_BYTES = 1024 * 1024;

createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
    if (size <= MAX_BODY_BYTES) return void chunks.push(c);
    if (!res.headersSent) res.writeHead(413, { connection: 'close' }).end(() => req.destroy());
  });
  req.on('end', async () => {
    if (size > MAX_BODY_BYTES) return;
    const raw = Buffer.concat(chunks);
    const ok = await verifyCallback(req.headers, raw);
    if (!ok) {
      console.log(req.url, 'NOT VERIFIED'); // its body is not yours to trust, nor to keep
      return void res.writeHead(401).end();
    }
    // Here: store what you need, then answer 2xx; treat a Service-Delivery-Id you have already
    // processed as done (delivery is at least once).
    console.log(req.url, req.headers['service-delivery-id'], 'verified', raw.toString());
    res.writeHead(200).end();
  });
}).listen(port, '127.0.0.1', () => console.log(`receiver listening on http://127.0.0.1:${port}`));
