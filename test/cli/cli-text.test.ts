import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chat, cleanupAll, igw, igwJson, makeSandbox, REPO_ROOT, startServer, type Sandbox } from '../helpers/cli.js';

/** What people read: --version, help with examples, one-sentence errors, numbers and plurals, "did you mean". */

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(cleanupAll);

describe('igw --version', () => {
  it("prints package.json's version on stdout and exits 0", async () => {
    const { version } = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const result = await igw(sandbox, [flag]);
      expect(result.exitCode).toBe(0);
      expect(result.stdout.trim()).toBe(version);
      expect(result.stderr).toBe('');
    }
  });
});

describe('--help of every command', () => {
  it.each(['batch', 'batch submit', 'batch list', 'batch get', 'batch wait', 'batch cancel', 'batch results'])('igw %s --help has an example (every command: test/unit/cli/help-examples)', async (command) => {
    const result = await igw(sandbox, [...command.split(' '), '--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split(/\nExamples?:\n/)[1]).toMatch(/^\s+.*\bigw /m);
  });

  it('a command-line mistake points at the help of the command that was mistyped', async () => {
    const option = await igw(sandbox, ['keys', 'create', '--frobnicate']);
    expect(option.exitCode).toBe(2);
    expect(option.stderr).toContain('(run igw keys create --help for usage)');
    const missing = await igw(sandbox, ['batch', 'wait']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('(run igw batch wait --help for usage)');
    const top = await igw(sandbox, ['--frobnicate']);
    expect(top.stderr).toContain('(run igw --help for usage)');
  });
});

describe('user errors read as one sentence and a next step', () => {
  it('a gateway refusal: no ".;", a next step that fits the code (not "see the message above")', async () => {
    const key = (await igwJson<{ key: string }>(sandbox, ['keys', 'create', '--json'])).key;
    const server = await startServer(sandbox);
    const result = await igw(sandbox, ['batch', 'get', 'batch_nosuch'], { env: { IGW_BASE_URL: server.url, IGW_API_KEY: key } });
    expect(result.exitCode).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^igw: RESOURCE_5411: .*[^.]; check the id \(each list command shows them, e\.g\. igw batch list\)$/);
    expect(result.stderr).not.toContain('.;');
    expect(result.stderr).not.toContain('see the message above');
  });

  it('config check phrases a wrong type for people, not as validator output', async () => {
    await writeFile(path.join(sandbox.cwd, 'igw.config.json'), JSON.stringify({ server: { port: 'eighty' }, batches: { concurrency: 0 } }));
    const result = await igw(sandbox, ['config', 'check']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('$.server.port: must be a number, not a string');
    expect(result.stderr).toMatch(/\$\.batches\.concurrency: must be (at least 1|greater than 0)/);
    expect(result.stderr).not.toMatch(/Invalid input|expected number, received/);
  });
});

describe('numbers, units and plurals', () => {
  it('config check counts in words that agree with the number (1 provider)', async () => {
    const result = await igw(sandbox, ['config', 'check']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/\d+ models, 1 provider\)?$/m);
  });
});

describe('did you mean, for model ids', () => {
  it('an unknown model on the wire names the closest one the key may use', async () => {
    const key = (await igwJson<{ key: string }>(sandbox, ['keys', 'create', '--json'])).key;
    const server = await startServer(sandbox);
    const typo = await chat(server.url, key, { model: 'local-ecoh', messages: [{ role: 'user', content: 'hi' }] });
    expect(typo.status).toBe(404);
    expect(typo.body.error.code).toBe('INFERENCE_3001');
    expect(typo.body.error.message).toContain('Did you mean "local-echo"?');
    const flavor = await chat(server.url, key, { model: 'local-echo:spede', messages: [{ role: 'user', content: 'hi' }] });
    expect(flavor.body.error.message).toContain('Did you mean ":speed"?');
    const far = await chat(server.url, key, { model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] });
    expect(far.body.error.message).not.toContain('Did you mean');
  });
});

describe('errors before the server started', () => {
  it('a port in use prints the reason and no "gateway stopped" line', async () => {
    const first = await startServer(sandbox);
    const other = await makeSandbox();
    const result = await igw(other, ['serve', '--port', String(first.port)]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`port ${first.port} is already in use`);
    expect(result.stderr).not.toContain('gateway stopped');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
