import { stat } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupAll, igw, makeSandbox, type Sandbox } from '../helpers/cli.js';

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(cleanupAll);

const COMMANDS = [
  'serve',
  'keys create',
  'keys list',
  'keys revoke',
  'keys rotate',
  'accounts list',
  'accounts create',
  'accounts set',
  'models',
  'usage',
  'migrate',
  'config init',
  'config check',
  'blueprints create',
  'blueprints list',
  'blueprints show',
  'blueprints rm',
  'skills create',
  'skills list',
  'skills show',
  'skills rm',
];

describe('--help', () => {
  it.each(COMMANDS)('igw %s --help exits 0 with usage and an Example on stdout', async (command) => {
    const result = await igw(sandbox, [...command.split(' '), '--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(`Usage: igw ${command}`);
    expect(result.stdout).toMatch(/\nExamples?:\n\s+.*\bigw /);
  });

  it.each(['', 'keys', 'accounts', 'config', 'blueprints', 'skills'])('igw %s --help lists its commands and exits 0', async (group) => {
    const result = await igw(sandbox, [...(group === '' ? [] : [group]), '--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Commands:');
  });

  it('--help touches no data dir', async () => {
    await igw(sandbox, ['keys', 'create', '--help']);
    await expect(stat(sandbox.dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('bad command lines exit 2', () => {
  it.each([
    [['frobnicate']],
    [['keys', 'frobnicate']],
    [['--frobnicate', 'keys', 'list']],
    [['keys', 'list', '--frobnicate']],
    [['keys', 'create', '--scopes']],
    [['keys', 'revoke']],
    [['accounts', 'create']],
    [['serve', '--bogus']],
  ])('igw %j exits 2 with the reason on stderr and nothing on stdout', async (args) => {
    const result = await igw(sandbox, args);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: /);
    // The help of the command that was mistyped (the top level for a global option).
    expect(result.stderr).toMatch(/\(run igw( [a-z]+)* --help for usage\)/);
  });

  it('a command-line mistake changes nothing in the data dir', async () => {
    await igw(sandbox, ['keys', 'create', '--bogus']);
    await expect(stat(sandbox.dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
