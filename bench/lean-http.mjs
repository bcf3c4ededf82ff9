// A lean HTTP/1.1 keep-alive connection for benches whose client shares the machine's two cores with
// the gateway: one request at a time per socket, the request written as one string, the answer
// read by Content-Length. Measured on the search bench (load 3–5): undici's Pool spent 0.45 ms of client
// CPU per request, this 0.16 ms (bench/ingest.mjs prints it): CPU the gateway's threads get back.
// It knows only what igw's JSON answers use (Content-Length bodies); anything else is an error.
import net from 'node:net';

const HEADER_END = Buffer.from('\r\n\r\n');

export async function leanConnection(origin) {
  const { hostname, port } = new URL(origin);
  const socket = net.connect({ host: hostname, port: Number(port), noDelay: true });
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let buffered = Buffer.alloc(0);
  let waiting = null;
  const settle = () => {
    if (waiting === null) return;
    const headerEnd = buffered.indexOf(HEADER_END);
    if (headerEnd === -1) return;
    const head = buffered.subarray(0, headerEnd).toString('latin1');
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (length === null) return fail(new Error(`answer without content-length: ${head.slice(0, 200)}`));
    const end = headerEnd + 4 + Number(length[1]);
    if (buffered.length < end) return;
    const answer = { status: Number(head.slice(9, 12)), body: buffered.subarray(headerEnd + 4, end) };
    buffered = buffered.subarray(end);
    const { resolve } = waiting;
    waiting = null;
    resolve(answer);
  };
  const fail = (error) => {
    const pending = waiting;
    waiting = null;
    pending?.reject(error);
  };
  socket.on('data', (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    settle();
  });
  socket.on('error', fail);
  socket.on('close', () => fail(new Error('the gateway closed the connection')));
  return {
    /** One request; resolves to { status, body: Buffer }. */
    request(method, path, headers, body) {
      const lines = [`${method} ${path} HTTP/1.1`, `host: ${hostname}:${port}`, `content-length: ${Buffer.byteLength(body)}`];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject };
        socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
      });
    },
    close() {
      socket.end();
    },
  };
}
