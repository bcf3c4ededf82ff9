import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupAll, igw, igwJson, makeSandbox, startServer, type Sandbox } from '../helpers/cli.js';

/** `igw blueprints …` / `igw skills …` round trips, with and without a running server. */

const VAULT = { IGW_VAULT_KEY: 'a long vault passphrase' }; // a passphrase: only blueprint commands read it here
const BLUEPRINT = { name: 'greeter', description: 'says hi', system: 'Greet {{who}}.', variables: { who: { default: 'everyone' } }, overrides: [{ words: ['ping'], reply: 'pong to {{who}}' }] };
const SKILL = { name: 'weather', instructions: 'Use get_weather.', tools: [{ type: 'function', function: { name: 'get_weather' } }] };

interface ItemView {
  id: string;
  kind: string;
  name: string;
  description: string | null;
  account: string;
  created_at: number;
  document?: unknown;
}

let sandbox: Sandbox;
let blueprintFile: string;
let skillFile: string;
beforeEach(async () => {
  sandbox = await makeSandbox();
  blueprintFile = path.join(sandbox.cwd, 'greeter.json');
  skillFile = path.join(sandbox.cwd, 'weather.json');
  await writeFile(blueprintFile, JSON.stringify(BLUEPRINT));
  await writeFile(skillFile, JSON.stringify(SKILL));
});
afterEach(cleanupAll);

describe('without a server (direct on the data dir)', () => {
  it.each([
    ['blueprints', () => blueprintFile, BLUEPRINT],
    ['skills', () => skillFile, SKILL],
  ])('igw %s create → list → show → rm', async (group, file, document) => {
    const created = await igwJson<ItemView>(sandbox, [group, 'create', file(), '--json'], { env: VAULT });
    expect(created).toMatchObject({ name: document.name, account: 'default', kind: group.slice(0, -1) });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);

    const plain = await igw(sandbox, [group, 'create', file()], { env: VAULT });
    expect(plain.exitCode).toBe(0);
    expect(plain.stdout.trim()).toMatch(/^[0-9a-f-]{36}$/);

    const list = await igwJson<ItemView[]>(sandbox, [group, 'list', '--json'], { env: VAULT });
    expect(list.map((item) => item.id).sort()).toEqual([created.id, plain.stdout.trim()].sort());

    const shown = await igwJson<ItemView>(sandbox, [group, 'show', created.id, '--json'], { env: VAULT });
    expect(shown.document).toEqual(document);
    const bare = await igwJson(sandbox, [group, 'show', created.id], { env: VAULT });
    expect(bare).toEqual(document);

    expect(await igwJson(sandbox, [group, 'rm', created.id, '--json'], { env: VAULT })).toEqual({ id: created.id, deleted: true });
    const gone = await igw(sandbox, [group, 'show', created.id], { env: VAULT });
    expect(gone.exitCode).toBe(1);
    expect(gone.stderr).toMatch(/no (blueprint|skill) .* list them with: igw/);
    // Eight CLI processes, each deriving the vault key with scrypt: give a loaded machine time.
  }, 90_000);

  it('without IGW_VAULT_KEY and no terminal: a clear error, no prompt', async () => {
    const result = await igw(sandbox, ['blueprints', 'create', blueprintFile]);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/no vault key; set IGW_VAULT_KEY/);
  });

  it('a wrong vault key is refused once the vault exists', async () => {
    await igwJson(sandbox, ['blueprints', 'create', blueprintFile, '--json'], { env: VAULT });
    const result = await igw(sandbox, ['blueprints', 'list'], { env: { IGW_VAULT_KEY: 'something else entirely' } });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/wrong vault key for account "default"/);
  });

  it('an invalid document names the problem, its line and its field', async () => {
    await writeFile(blueprintFile, JSON.stringify({ name: 'x', system: 'Hi {{nobody}}' }));
    const result = await igw(sandbox, ['blueprints', 'create', blueprintFile], { env: VAULT });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`${blueprintFile}:1: system: placeholder \\{\\{nobody\\}\\} is not declared`));
  });

  it('every problem of a document in one run, each with its line, before any vault key is asked for', async () => {
    const document = {
      name: '',
      system: 'Hi',
      variables: { who: { required: 'yes' } },
      overrides: [{ words: ['ping'] }, { pattern: 'x', reply: 'y', max_match_chars: 'ten' }],
      temperature_typo: 1,
    };
    await writeFile(blueprintFile, JSON.stringify(document, null, 2));
    // No IGW_VAULT_KEY: the local check comes first.
    const result = await igw(sandbox, ['blueprints', 'create', blueprintFile]);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    const problems = result.stderr.trim().split('\n').slice(0, -1);
    expect(problems).toEqual(
      expect.arrayContaining([
        `${blueprintFile}:2: name must not be empty`,
        `${blueprintFile}:6: variables.who.required must be true or false, not a string`,
        `${blueprintFile}:10: overrides[0].reply is required`,
        `${blueprintFile}:18: overrides[1].max_match_chars must be a number, not a string`,
      ]),
    );
    expect(problems).toContain(`${blueprintFile}:21: temperature_typo is not a known field`);
    expect(result.stderr).not.toMatch(/Invalid input|no vault key/);
    expect(result.stderr.trim().split('\n').at(-1)).toMatch(new RegExp(`^igw: ${problems.length} problems in blueprint ${blueprintFile}; fix them`));
  });

  it('a file that is not JSON is reported with its line', async () => {
    await writeFile(skillFile, '{\n  "name": "weather",\n  "instructions": "x",,\n}\n');
    const result = await igw(sandbox, ['skills', 'create', skillFile], { env: VAULT });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`${skillFile}:3: not valid JSON`));
  });

  it('a short vault key cannot start a vault', async () => {
    const result = await igw(sandbox, ['skills', 'create', skillFile], { env: { IGW_VAULT_KEY: 'short' } });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/at least 8 characters/);
  });
});

describe('with a running server', () => {
  it('create goes through the server and a request can use it at once', async () => {
    const server = await startServer(sandbox);
    const key = (await igwJson<{ key: string }>(sandbox, ['keys', 'create', '--vault', '--json'])).key;
    const created = await igwJson<ItemView>(sandbox, ['blueprints', 'create', blueprintFile, '--json'], { env: VAULT });
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-vault-key': VAULT.IGW_VAULT_KEY },
      body: JSON.stringify({ model: 'local-echo', blueprint_id: created.id, variables: { who: 'Ada' }, messages: [{ role: 'user', content: 'ping' }] }),
    });
    const body = (await response.json()) as { choices: Array<{ finish_reason: string; message: { content: string } }> };
    expect(response.status).toBe(200);
    expect(body.choices[0]).toMatchObject({ finish_reason: 'blueprint_override', message: { content: 'pong to Ada' } });
    const list = await igwJson<ItemView[]>(sandbox, ['blueprints', 'list', '--json'], { env: VAULT });
    expect(list.map((item) => item.name)).toEqual(['greeter']);
    await server.stop();
  }, 60_000);
});
