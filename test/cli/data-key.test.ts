import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupAll, igw, igwJson, makeSandbox, startServer, type Sandbox } from '../helpers/cli.js';

/** DESIGN §4: IGW_DATA_KEY is the data-at-rest key; IGW_VAULT_KEY only the blueprint vault key. */

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(cleanupAll);

describe('the data key and the vault key', () => {
  it("the README's blueprint section in one shell no longer stops igw serve from starting", async () => {
    const first = await startServer(sandbox);
    await first.stop();
    // README "The vault": export IGW_VAULT_KEY=…, then the blueprint commands, then (same shell) igw serve.
    const shell = { IGW_VAULT_KEY: 'a long passphrase' };
    const blueprint = path.join(sandbox.cwd, 'support.json');
    await writeFile(blueprint, JSON.stringify({ name: 'support', model: 'local-echo', system: 'Be brief.' }));
    await igwJson(sandbox, ['blueprints', 'create', blueprint, '--json'], { env: shell });
    const again = await startServer(sandbox, [], { env: shell });
    expect(again.stderr()).not.toContain('data key');
    expect((await again.stop()).exitCode).toBe(0);
  });

  it('IGW_DATA_KEY keys a data dir; a later start without it is refused with what to set', async () => {
    const keyed = { IGW_DATA_KEY: 'the data passphrase' };
    await (await startServer(sandbox, [], { env: keyed })).stop();
    const refused = await igw(sandbox, ['serve', '--port', '0']);
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^igw: .* IGW_DATA_KEY, which is not set; set IGW_DATA_KEY to the key it was first started with$/)]);
    await (await startServer(sandbox, [], { env: keyed })).stop();
  });

  it('a data dir first keyed through IGW_VAULT_KEY opens with the same value as IGW_DATA_KEY, with a one-line hint', async () => {
    const value = 'the old passphrase';
    await (await startServer(sandbox, [], { env: { IGW_DATA_KEY: value } })).stop();
    // The state an older igw left: keyed through IGW_VAULT_KEY, no record of the variable's name.
    await rm(path.join(sandbox.dataDir, 'data-key.source'));
    const old = await igw(sandbox, ['serve', '--port', '0'], { env: { IGW_VAULT_KEY: value } });
    expect(old.exitCode).toBe(1);
    expect(old.stderr.trim()).toMatch(/was first started with its data key in IGW_VAULT_KEY, which is now only the blueprint vault key; IGW_DATA_KEY is its name now: export IGW_DATA_KEY="\$IGW_VAULT_KEY"$/);
    const renamed = await startServer(sandbox, [], { env: { IGW_DATA_KEY: value, IGW_VAULT_KEY: value } });
    const hints = renamed.stderr().split('\n').filter((line) => line.includes('first keyed through IGW_VAULT_KEY'));
    expect(hints).toHaveLength(1);
    expect(JSON.parse(hints[0]!)).toMatchObject({ level: 'warn' });
    await renamed.stop();
    const later = await startServer(sandbox, [], { env: { IGW_DATA_KEY: value } });
    expect(later.stderr()).not.toContain('first keyed through');
    await later.stop();
  });
});
