import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PART_BYTES } from '../../src/files/postgres-file-bytes.js';
import { chatLines, uploadBatchFile, waitForBatch } from '../helpers/batches.js';
import { cleanupAll, igw, igwJson, makeSandbox, startServer } from '../helpers/cli.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

/** The data dir's key (K1) and the team's (K2): different, so every sealed byte must be re-sealed. */
const K1 = '1a'.repeat(32);
const K2 = '2b'.repeat(32);
const VAULT_KEY = 'a long vault passphrase';
const BLUEPRINT = { name: 'greeter', system: 'Greet {{who}}.', variables: { who: { default: 'everyone' } }, overrides: [{ words: ['ping'], reply: 'pong to {{who}}' }] };

interface CopyReport {
  from_data_dir: { copied: Record<string, number>; skipped: Record<string, number>; not_copied: string[] };
}

/** `igw migrate --from-data-dir` with files and the vault (issue 19 item 3), from a data dir keyed with another key than the team's. */
describe('igw migrate --from-data-dir: files, vault and batches under the team key', () => {
  let postgres: TestPostgres;

  beforeAll(async () => {
    postgres = await startPostgres();
  }, 60_000);
  afterEach(() => cleanupAll());
  afterAll(async () => {
    await postgres?.stop();
  });

  it('re-seals files and batch rows under the team key, copies the vault as it is; a team gateway serves all of them', async () => {
    const databaseUrl = await postgres.createDatabase();
    const sandbox = await makeSandbox();
    // The machine's own config (JSON store), and the team's outside the cwd.
    await writeFile(path.join(sandbox.cwd, 'igw.config.json'), JSON.stringify({}));
    const teamConfig = path.join(sandbox.root, 'team.json');
    await writeFile(teamConfig, JSON.stringify({ store: { kind: 'postgres', url: databaseUrl } }));
    const machine = { IGW_DATA_KEY: K1 };

    // On the machine, keyed through IGW_DATA_KEY=K1: an API key, a blueprint, an uploaded file (several parts) and a batch.
    const key = (await igwJson<{ key: string }>(sandbox, ['keys', 'create', '--vault', '--json'], { env: machine })).key;
    const blueprintFile = path.join(sandbox.cwd, 'greeter.json');
    await writeFile(blueprintFile, JSON.stringify(BLUEPRINT));
    const blueprint = await igwJson<{ id: string }>(sandbox, ['blueprints', 'create', blueprintFile, '--json'], { env: { ...machine, IGW_VAULT_KEY: VAULT_KEY } });
    const local = await startServer(sandbox, [], { env: machine });
    const onLocal = new OpenAI({ apiKey: key, baseURL: `${local.url}/v1`, maxRetries: 0 });
    const content = randomBytes(Math.floor(2.5 * PART_BYTES));
    const uploaded = await onLocal.files.create({ file: await toFile(content, 'data.bin'), purpose: 'user_data' });
    const batch = await onLocal.batches.create({ input_file_id: await uploadBatchFile(onLocal, chatLines(3)), endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect((await waitForBatch(onLocal, batch.id)).status).toBe('succeeded');
    expect((await local.stop('SIGTERM')).exitCode).toBe(0);

    // The data dir has no vault.key: without its key named, the copy stops before touching the database.
    const unnamed = await igw(sandbox, ['--config', teamConfig, 'migrate', '--from-data-dir', sandbox.dataDir], { env: { IGW_DATA_KEY: K2 } });
    expect(unnamed.exitCode).toBe(1);
    expect(unnamed.stderr).toMatch(/cannot open .* to copy it.*--from-data-key-env NAME/s);

    const copying = { env: { IGW_DATA_KEY: K2, MACHINE_KEY: K1 } };
    const report = await igwJson<CopyReport>(sandbox, ['--config', teamConfig, 'migrate', '--from-data-dir', sandbox.dataDir, '--from-data-key-env', 'MACHINE_KEY', '--json'], copying);
    // Files: the upload, the batch's input and its output.
    expect(report.from_data_dir.copied).toMatchObject({ files: 3, vaults: 1, vault_items: 1, batches: 1 });
    expect(report.from_data_dir.copied['file_bytes']).toBeGreaterThan(content.length);
    expect(report.from_data_dir.not_copied).toEqual([]);
    const again = await igwJson<CopyReport>(sandbox, ['--config', teamConfig, 'migrate', '--from-data-dir', sandbox.dataDir, '--from-data-key-env', 'MACHINE_KEY', '--json'], copying);
    expect(again.from_data_dir).toMatchObject({ copied: { files: 0, vaults: 0, batches: 0 }, skipped: { files: 3, vaults: 1, batches: 1 } });
    // The database now holds K2's check value: a copy sealing under another key is refused.
    const otherTeamKey = await igw(sandbox, ['--config', teamConfig, 'migrate', '--from-data-dir', sandbox.dataDir, '--from-data-key-env', 'MACHINE_KEY'], { env: { IGW_DATA_KEY: '3c'.repeat(32), MACHINE_KEY: K1 } });
    expect(otherTeamKey.exitCode).toBe(1);
    expect(otherTeamKey.stderr).toMatch(/IGW_DATA_KEY is not the key this team's database was first used with.*set IGW_DATA_KEY to the value the other instances use/s);

    // A team gateway with K2 on its own data dir.
    const team = await startServer(sandbox, ['--config', teamConfig], { env: { IGW_DATA_DIR: path.join(sandbox.root, 'team-data'), IGW_DATA_KEY: K2 }, settle: false });
    try {
      const onTeam = new OpenAI({ apiKey: key, baseURL: `${team.url}/v1`, maxRetries: 0 });
      const downloaded = Buffer.from(await (await onTeam.files.content(uploaded.id)).arrayBuffer());
      expect(downloaded.equals(content)).toBe(true);
      const response = await fetch(`${team.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-vault-key': VAULT_KEY },
        body: JSON.stringify({ model: 'local-echo', blueprint_id: blueprint.id, variables: { who: 'Ada' }, messages: [{ role: 'user', content: 'ping' }] }),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { choices: unknown[] }).choices[0]).toMatchObject({ finish_reason: 'blueprint_override', message: { content: 'pong to Ada' } });
      const listed = await onTeam.batches.list();
      expect(listed.data.map((item) => [item.id, item.status])).toEqual([[batch.id, 'succeeded']]);
      const output = (await (await onTeam.files.content(listed.data[0]!.output_file_id!)).text()).split('\n').filter((line) => line !== '');
      expect(output.map((line) => (JSON.parse(line) as { custom_id: string }).custom_id)).toEqual(['row-0', 'row-1', 'row-2']);
    } finally {
      await team.stop();
    }
  }, 120_000);
});
