// The reference for `npm run bench`: a bare node:http pass-through to the same upstream, with
// nothing else (no auth, routing, billing or logs). igw's overhead is measured against this.
import { createServer } from 'node:http';
import { Pool } from 'undici';

const upstream = new Pool(process.argv[2], { connections: 256 });
const server = createServer({ keepAliveTimeout: 60000 }, async (request, response) => {
  const parts = [];
  for await (const part of request) parts.push(part);
  try {
    const reply = await upstream.request({ method: 'POST', path: request.url, headers: { 'content-type': 'application/json' }, body: Buffer.concat(parts) });
    response.writeHead(reply.statusCode, { 'content-type': reply.headers['content-type'] ?? 'application/json' });
    for await (const part of reply.body) response.write(part);
    response.end();
  } catch (error) {
    response.writeHead(502).end(String(error));
  }
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}\n`));
// Exit cleanly on SIGTERM so a `--cpu-prof` run (bench/gateway-profile.mjs) writes its profile.
process.once('SIGTERM', () => process.exit(0));
