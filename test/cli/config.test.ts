import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupAll, igw, makeSandbox, type Sandbox } from '../helpers/cli.js';

interface CheckReport {
  ok: boolean;
  source: string | null;
  issues: Array<{ path: string; message: string }>;
}

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(cleanupAll);

async function writeConfig(value: unknown, name = 'igw.config.json'): Promise<string> {
  const file = path.join(sandbox.cwd, name);
  await writeFile(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return file;
}

/** Problem lines `$.path: message` that config check printed on stderr. */
function problemPaths(stderr: string): string[] {
  return stderr
    .split('\n')
    .map((line) => /^\s*(\$\S*): /.exec(line)?.[1])
    .filter((found): found is string => found !== undefined);
}

describe('igw config init', () => {
  it('writes igw.config.json in the cwd, refuses a second time, overwrites with --force', async () => {
    const target = path.join(sandbox.cwd, 'igw.config.json');
    const first = await igw(sandbox, ['config', 'init']);
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toBe(target);
    expect(first.stderr).toContain('igw config check');
    const written = await readFile(target, 'utf8');
    expect(written).toContain('"default_plan"');

    await writeFile(target, '{}\n');
    const second = await igw(sandbox, ['config', 'init']);
    expect(second.exitCode).toBe(1);
    expect(second.stdout).toBe('');
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect(second.stderr).toContain('already exists');
    expect(second.stderr).toContain('--force');
    expect(await readFile(target, 'utf8')).toBe('{}\n');

    const forced = await igw(sandbox, ['config', 'init', '--force']);
    expect(forced.exitCode).toBe(0);
    expect(await readFile(target, 'utf8')).toBe(written);
  });

  it('writes no data dir', async () => {
    await igw(sandbox, ['config', 'init']);
    await expect(stat(sandbox.dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('igw config check', () => {
  it('accepts the starter config (exit 0, ok on stdout)', async () => {
    expect((await igw(sandbox, ['config', 'init'])).exitCode).toBe(0);
    const result = await igw(sandbox, ['config', 'check']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^ok: /);
    expect(result.stdout).toContain(path.join(sandbox.cwd, 'igw.config.json'));
    const json = await igw(sandbox, ['config', 'check', '--json']);
    expect(json.exitCode).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ ok: true, source: path.join(sandbox.cwd, 'igw.config.json'), found_by: './igw.config.json', issues: [] });
  });

  it('with no config file reports the built-in defaults', async () => {
    const result = await igw(sandbox, ['config', 'check', '--json']);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ ok: true, source: null, found_by: null, issues: [] });
  });

  it('reports an unknown key at its own JSON path ($.server.prot)', async () => {
    await writeConfig({ server: { prot: 9000 } });
    const result = await igw(sandbox, ['config', 'check']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(problemPaths(result.stderr)).toContain('$.server.prot');
  });

  it('reports a bad type with its JSON path', async () => {
    await writeConfig({ server: { port: 'eighty' } });
    const result = await igw(sandbox, ['config', 'check']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(problemPaths(result.stderr)).toEqual(['$.server.port']);
  });

  it('reports a missing ${ENV} with its JSON path and the variable name', async () => {
    await writeConfig({ providers: { openai: { kind: 'openai', base_url: 'https://api.openai.com/v1', api_key: '${IGW_TEST_MISSING_ENV}' } } });
    const result = await igw(sandbox, ['config', 'check']);
    expect(result.exitCode).toBe(1);
    expect(problemPaths(result.stderr)).toEqual(['$.providers.openai.api_key']);
    expect(result.stderr).toContain('IGW_TEST_MISSING_ENV');
    // Set, it passes.
    const withEnv = await igw(sandbox, ['config', 'check'], { env: { IGW_TEST_MISSING_ENV: 'sk-test' } });
    expect(withEnv.exitCode).toBe(0);
  });

  it('reports a route naming an unknown provider with its JSON path', async () => {
    await writeConfig({ models: { m: { type: 'chat', routes: [{ provider: 'nowhere', upstream_model: 'm' }] } } });
    const result = await igw(sandbox, ['config', 'check']);
    expect(result.exitCode).toBe(1);
    expect(problemPaths(result.stderr)).toEqual(['$.models.m.routes[0].provider']);
    expect(result.stderr).toContain('nowhere');
  });

  const everythingWrong = {
    server: { prot: 1, port: 'eighty' },
    providers: { openai: { kind: 'openai', base_url: 'https://api.openai.com/v1', api_key: '${IGW_TEST_MISSING_ENV}' } },
    models: { m: { type: 'chat', routes: [{ provider: 'nowhere', upstream_model: 'm' }] } },
  };
  const expectedPaths = ['$.server.prot', '$.server.port', '$.providers.openai.api_key', '$.models.m.routes[0].provider'];

  it('lists every problem of a broken config, each with its JSON path, on stderr', async () => {
    await writeConfig(everythingWrong);
    const result = await igw(sandbox, ['config', 'check']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(problemPaths(result.stderr).sort()).toEqual([...expectedPaths].sort());
    expect(result.stderr).toMatch(/igw: \d+ problems? in .*igw\.config\.json/);
  });

  it('--json gives {ok:false, issues:[{path,message}]} with every problem', async () => {
    await writeConfig(everythingWrong);
    const result = await igw(sandbox, ['config', 'check', '--json']);
    expect(result.exitCode).toBe(1);
    const report = JSON.parse(result.stdout) as CheckReport;
    expect(report.ok).toBe(false);
    expect(report.source).toBe(path.join(sandbox.cwd, 'igw.config.json'));
    for (const issue of report.issues) {
      expect(Object.keys(issue).sort()).toEqual(['message', 'path']);
      expect(issue.message).not.toBe('');
    }
    expect(report.issues.map((issue) => issue.path).sort()).toEqual([...expectedPaths].sort());
  });

  it('--json on the schema-level problems alone (path + message each)', async () => {
    await writeConfig({ server: { port: 'eighty' }, providers: { openai: { kind: 'openai', base_url: 'https://api.openai.com/v1', api_key: '${IGW_TEST_MISSING_ENV}' } } });
    const result = await igw(sandbox, ['config', 'check', '--json']);
    expect(result.exitCode).toBe(1);
    const report = JSON.parse(result.stdout) as CheckReport;
    expect(report.ok).toBe(false);
    expect(report.issues.map((issue) => issue.path).sort()).toEqual(['$.providers.openai.api_key', '$.server.port']);
  });

  it('reports invalid JSON with a line and column', async () => {
    await writeConfig('{ "server": { "port": 8787, }\n');
    const result = await igw(sandbox, ['config', 'check']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/line \d+, column \d+/);
  });

  it('--config FILE and IGW_CONFIG pick another file', async () => {
    const file = await writeConfig({ server: { port: 'eighty' } }, 'other.json');
    const viaFlag = await igw(sandbox, ['--config', file, 'config', 'check', '--json']);
    expect(viaFlag.exitCode).toBe(1);
    expect((JSON.parse(viaFlag.stdout) as CheckReport).source).toBe(file);
    const viaEnv = await igw(sandbox, ['config', 'check', '--json'], { env: { IGW_CONFIG: file } });
    expect(viaEnv.exitCode).toBe(1);
    expect((JSON.parse(viaEnv.stdout) as CheckReport).source).toBe(file);
  });

  it('a missing --config file is a problem, not a crash', async () => {
    const result = await igw(sandbox, ['--config', 'nope.json', 'config', 'check']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('cannot read');
    expect(result.stderr).not.toContain('internal error');
  });

  it('other commands refuse to run on a broken config (exit 1, pointing at config check)', async () => {
    await writeConfig({ server: { port: 'eighty' } });
    const result = await igw(sandbox, ['keys', 'create']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('$.server.port');
    expect(result.stderr).toContain('igw config check');
    // Each problem on its own line, then one sentence with the next step.
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toBe('$.server.port: must be a number, not a string');
    expect(lines.at(-1)).toMatch(/^igw: 1 problem in \S+igw\.config\.json; fix them and run the command again/);
  });
});
