import { createServer } from 'node:http';
import { callbackVerifier } from './verify-callback.mjs';

// WARDEN_API_KEY: the organization's API key, which reads its signing keys.
const verifyCallback = callbackVerifier({ wardenUrl: process.env.WARDEN_URL ?? 'http://127.0.0.1:3000', apiKey: process.env.WARDEN_API_KEY });
const port = Number(process.env.PORT ?? 3100);

createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    const raw = Buffer.concat(chunks);
    const ok = await verifyCallback(req.headers, raw);
    console.log(req.url, req.headers['service-delivery-id'], ok ? 'verified' : 'NOT VERIFIED', raw.toString());
    res.writeHead(ok ? 200 : 401).end();
  });
}).listen(port, '127.0.0.1', () => console.log(`receiver listening on http://127.0.0.1:${port}`));
