import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupAll, igw, igwJson, makeSandbox, startServer, type RunningServer, type Sandbox } from '../helpers/cli.js';
import { freeLoopbackPort } from '../helpers/free-port.js';

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(cleanupAll);

describe('igw models against a running gateway', () => {
  let server: RunningServer;
  let key: string;
  beforeEach(async () => {
    key = (await igwJson<{ key: string }>(sandbox, ['keys', 'create', '--json'])).key;
    server = await startServer(sandbox);
  });

  it('--json (IGW_BASE_URL + IGW_API_KEY) prints the API list including local-echo', async () => {
    const result = await igw(sandbox, ['models', '--json'], { env: { IGW_BASE_URL: server.url, IGW_API_KEY: key } });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    const list = JSON.parse(result.stdout) as { object: string; data: Array<{ id: string; object: string; owned_by: string }> };
    expect(list.object).toBe('list');
    const ids = list.data.map((model) => model.id);
    expect(ids).toContain('local-echo');
    expect(ids).toContain('local-embed');
    expect(list.data.find((model) => model.id === 'local-echo')?.object).toBe('model');
  });

  it('--base-url / --api-key flags work as well as the environment', async () => {
    const list = await igwJson<{ data: Array<{ id: string }> }>(sandbox, ['--base-url', server.url, '--api-key', key, 'models', '--json']);
    expect(list.data.map((model) => model.id)).toContain('local-echo');
  });

  it('plain models prints an ID / OWNED BY table', async () => {
    const result = await igw(sandbox, ['models'], { env: { IGW_BASE_URL: server.url, IGW_API_KEY: key } });
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^ID\s+OWNED BY$/);
    expect(lines.some((line) => /^local-echo\s+\S+/.test(line))).toBe(true);
  });

  it('--meta prints a table with type, context and pricing columns', async () => {
    const result = await igw(sandbox, ['models', '--meta'], { env: { IGW_BASE_URL: server.url, IGW_API_KEY: key } });
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^ID\s+TYPE\s+CONTEXT\s+CAPABILITIES\s+INPUT €\/M\s+OUTPUT €\/M$/);
    const echo = lines.find((line) => line.startsWith('local-echo '));
    expect(echo).toBeDefined();
    expect(echo).toMatch(/^local-echo\s+chat\s+\d+\s+\S*streaming/);
    expect(lines.find((line) => line.startsWith('local-embed '))).toMatch(/\sembeddings\s/);
  });

  it('--meta --json includes _meta', async () => {
    const list = await igwJson<{ data: Array<{ id: string; _meta?: { type?: string } }> }>(sandbox, ['models', '--meta', '--json'], { env: { IGW_BASE_URL: server.url, IGW_API_KEY: key } });
    expect(list.data.find((model) => model.id === 'local-echo')?._meta?.type).toBe('chat');
  });

  it('a revoked key exits 1 with the AUTH code and a hint about the key', async () => {
    const created = await igwJson<{ id: string; key: string }>(sandbox, ['keys', 'create', '--json']);
    await igw(sandbox, ['keys', 'revoke', created.id]);
    const result = await igw(sandbox, ['models'], { env: { IGW_BASE_URL: server.url, IGW_API_KEY: created.key } });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('AUTH_1008');
    expect(result.stderr).toContain('IGW_API_KEY');
  });
});

describe('igw models without a usable gateway', () => {
  it('without a key exits 1 telling to set IGW_API_KEY', async () => {
    const result = await igw(sandbox, ['models'], { env: { IGW_BASE_URL: 'http://127.0.0.1:9' } });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('IGW_API_KEY');
    expect(lines[0]).toContain('igw keys create');
  });

  it('against a dead port exits 1 saying no gateway answers', async () => {
    const port = await freeLoopbackPort();
    const base = `http://127.0.0.1:${port}`;
    const result = await igw(sandbox, ['models', '--json'], { env: { IGW_BASE_URL: base, IGW_API_KEY: `sk-svc-${'a'.repeat(128)}` } });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`no gateway answers at ${base}`);
    expect(lines[0]).toContain('igw serve');
    expect(result.stderr).not.toContain('internal error');
  });
});
