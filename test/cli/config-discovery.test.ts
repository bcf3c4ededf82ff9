import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupAll, igw, igwJson, listModels, makeSandbox, startServer, type Sandbox } from '../helpers/cli.js';

/** DESIGN §1: --config, IGW_CONFIG, ./igw.config.json, then $XDG_CONFIG_HOME/igw/config.json (else ~/.config/igw/config.json). */

interface CheckReport {
  ok: boolean;
  source: string | null;
  found_by: string | null;
  issues: Array<{ path: string; message: string }>;
}

/** A config that adds one model, so which file was read shows in the catalog. */
function configWithModel(model: string): string {
  return JSON.stringify({ models: { [model]: { type: 'chat', routes: [{ provider: 'local', upstream_model: 'local-echo' }] } } });
}

async function writeAt(file: string, text: string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
  return file;
}

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(cleanupAll);

describe('config discovery', () => {
  it('igw serve from another folder uses $XDG_CONFIG_HOME/igw/config.json and says so', async () => {
    const xdg = path.join(sandbox.root, 'xdg');
    const file = await writeAt(path.join(xdg, 'igw', 'config.json'), configWithModel('from-xdg'));
    const env = { XDG_CONFIG_HOME: xdg };
    const key = await igwJson<{ key: string }>(sandbox, ['keys', 'create', '--json'], { env });
    const server = await startServer(sandbox, [], { env });
    const models = await listModels(server.url, key.key);
    expect(models.body.data.map((model: { id: string }) => model.id)).toContain('from-xdg');
    const started = server.stderr().split('\n').find((line) => line.includes('"gateway started"'));
    expect(JSON.parse(started!).config).toBe(`${file} (from $XDG_CONFIG_HOME/igw/config.json)`);
    await server.stop();
  });

  it('falls back to ~/.config/igw/config.json without XDG_CONFIG_HOME; config check names it', async () => {
    const file = await writeAt(path.join(sandbox.home, '.config', 'igw', 'config.json'), configWithModel('from-home'));
    const result = await igw(sandbox, ['config', 'check']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`ok: ${file} (from ~/.config/igw/config.json): 5 models, 1 provider`);
    const report = await igwJson<CheckReport>(sandbox, ['config', 'check', '--json']);
    expect(report).toMatchObject({ ok: true, source: file, found_by: '~/.config/igw/config.json' });
  });

  it('order: --config > IGW_CONFIG > ./igw.config.json > the user config', async () => {
    const xdg = path.join(sandbox.root, 'xdg');
    await writeAt(path.join(xdg, 'igw', 'config.json'), configWithModel('a'));
    const local = await writeAt(path.join(sandbox.cwd, 'igw.config.json'), configWithModel('b'));
    const viaEnv = await writeAt(path.join(sandbox.root, 'env.json'), configWithModel('c'));
    const viaFlag = await writeAt(path.join(sandbox.root, 'flag.json'), configWithModel('d'));
    const check = (args: string[], env: Record<string, string>) => igwJson<CheckReport>(sandbox, [...args, 'config', 'check', '--json'], { env: { XDG_CONFIG_HOME: xdg, ...env } });
    expect(await check([], {})).toMatchObject({ source: local, found_by: './igw.config.json' });
    expect(await check([], { IGW_CONFIG: viaEnv })).toMatchObject({ source: viaEnv, found_by: 'IGW_CONFIG' });
    expect(await check(['--config', viaFlag], { IGW_CONFIG: viaEnv })).toMatchObject({ source: viaFlag, found_by: '--config' });
  });

  it('with no file anywhere: the built-in defaults, said plainly', async () => {
    const result = await igw(sandbox, ['config', 'check']);
    expect(result.stdout).toBe('ok: no config file (built-in defaults): 4 models, 1 provider');
  });
});

describe('did you mean, for config keys', () => {
  it('config check suggests the key a typo meant, at its JSON path', async () => {
    await writeAt(path.join(sandbox.cwd, 'igw.config.json'), JSON.stringify({ server: { prot: 9000 }, provders: {}, default_plan: 'developr' }));
    const result = await igw(sandbox, ['config', 'check']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('$.server.prot: unknown key "prot" (did you mean "port"?)');
    expect(result.stderr).toContain('$.provders: unknown key "provders" (did you mean "providers"?)');
    expect(result.stderr).toContain('unknown plan "developr" (did you mean "developer"?)');
  });

  it('keys of records of objects are suggested too; an unrelated name gets no guess', async () => {
    const config = { providers: { up: { kind: 'openai', base_ur: 'http://127.0.0.1:1/v1', zzzzzz: 1 } } };
    await writeAt(path.join(sandbox.cwd, 'igw.config.json'), JSON.stringify(config));
    const report = JSON.parse((await igw(sandbox, ['config', 'check', '--json'])).stdout) as CheckReport;
    expect(report.issues).toContainEqual({ path: '$.providers.up.base_ur', message: 'unknown key "base_ur" (did you mean "base_url"?)' });
    expect(report.issues).toContainEqual({ path: '$.providers.up.zzzzzz', message: 'unknown key "zzzzzz"' });
  });

  it('igw serve refuses the same config with the same suggestion', async () => {
    await writeAt(path.join(sandbox.cwd, 'igw.config.json'), JSON.stringify({ server: { prot: 9000 } }));
    const result = await igw(sandbox, ['serve', '--port', '0']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('unknown key "prot" (did you mean "port"?)');
  });
});
