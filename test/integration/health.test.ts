import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** DESIGN §5: clients probe the base URL before their first call (Claude Code: HEAD /); no key needed. */
describe('health endpoints', () => {
  let igw: TestGateway;
  beforeAll(async () => {
    igw = await startTestGateway();
  });
  afterAll(async () => {
    await igw.close();
  });

  it('GET / and HEAD / answer 200 without a key', async () => {
    const get = await fetch(`${igw.url}/`);
    expect(get.status).toBe(200);
    expect(await get.text()).toBe('igw is running\n');
    const head = await fetch(`${igw.url}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('GET /health answers {status: "ok", version} without a key', async () => {
    const response = await fetch(`${igw.url}/health`);
    expect(response.status).toBe(200);
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(await response.json()).toEqual({ status: 'ok', version });
  });

  it('other paths still need routing and a key', async () => {
    expect((await fetch(`${igw.url}/healthz`)).status).toBe(404);
    expect((await fetch(`${igw.url}/`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${igw.url}/v1/models`)).status).toBe(401);
  });
});
