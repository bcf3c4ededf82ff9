import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chat, cleanupAll, igwJson, makeSandbox, startServer, type Sandbox } from '../helpers/cli.js';
import { freeLoopbackPort } from '../helpers/free-port.js';

/** `igw serve --no-tui` (and any non-terminal stdout): each request and each upstream failure is one JSON line on stderr. */

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(cleanupAll);

/** A model whose only provider refuses connections: every request to it is an upstream failure. */
async function configWithBrokenModel(): Promise<void> {
  const port = await freeLoopbackPort();
  await writeFile(
    path.join(sandbox.cwd, 'igw.config.json'),
    JSON.stringify({
      providers: { down: { kind: 'openai', base_url: `http://127.0.0.1:${port}/v1`, timeout_ms: 2000 } },
      models: { broken: { type: 'chat', routes: [{ provider: 'down', upstream_model: 'x' }] } },
    }),
  );
}

function jsonLines(stderr: string): Array<Record<string, unknown>> {
  return stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('igw serve --no-tui request lines', () => {
  it('one line per request with the key name; one more per upstream failure with its code', async () => {
    await configWithBrokenModel();
    const key = await igwJson<{ id: string; key: string }>(sandbox, ['keys', 'create', '--name', 'laptop', '--json']);
    const server = await startServer(sandbox, ['--no-tui']);
    expect((await chat(server.url, key.key)).status).toBe(200);
    const failed = await chat(server.url, key.key, { model: 'broken', messages: [{ role: 'user', content: 'hi' }] });
    expect(failed.status).toBe(502);
    expect(failed.body.error.code).toBe('INFERENCE_3105');
    expect((await chat(server.url, 'sk-svc-' + 'x'.repeat(128))).status).toBe(401);
    await server.stop();

    const lines = jsonLines(server.stderr());
    const requests = lines.filter((line) => line['msg'] === 'request');
    expect(requests).toHaveLength(3);
    expect(requests[0]).toMatchObject({ level: 'info', key: 'laptop', key_id: key.id, model: 'local-echo', status: 200, error_code: null, endpoint: '/v1/chat/completions' });
    expect(typeof requests[0]!['latency_ms']).toBe('number');
    expect(typeof requests[0]!['eur']).toBe('string');
    expect(requests[1]).toMatchObject({ level: 'error', key: 'laptop', model: 'broken', status: 502, error_code: 'INFERENCE_3105' });
    expect(requests[2]).toMatchObject({ level: 'warn', key: null, status: 401, error_code: 'AUTH_1008' });
    const upstream = lines.filter((line) => line['msg'] === 'upstream failure');
    expect(upstream).toEqual([expect.objectContaining({ level: 'error', code: 'INFERENCE_3105', status: 502, key: 'laptop', model: 'broken', request_id: requests[1]!['request_id'] })]);
  });
});
