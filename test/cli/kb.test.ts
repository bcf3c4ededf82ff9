import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanupAll, igw, makeSandbox, startServer, type RunningServer, type Sandbox } from '../helpers/cli.js';
import { scriptAvailable } from '../helpers/pty.js';

let sandbox: Sandbox;
let server: RunningServer;
let env: Record<string, string>;
let folder: string;

beforeEach(async () => {
  sandbox = await makeSandbox();
  const created = await igw(sandbox, ['keys', 'create', '--vault']);
  server = await startServer(sandbox);
  env = { IGW_BASE_URL: server.url, IGW_API_KEY: created.stdout.trim() };
  folder = path.join(sandbox.root, 'notes');
  await mkdir(path.join(folder, 'sub'), { recursive: true });
  await writeFile(path.join(folder, 'keys.md'), 'Rotate an API key with igw keys rotate.\n');
  await writeFile(path.join(folder, 'sub', 'fruit.txt'), 'Bananas are yellow and grow in bunches.\n');
  await writeFile(path.join(folder, 'debug.log'), 'not for the store\n');
  await writeFile(path.join(folder, '.gitignore'), '*.log\n');
  expect((await kb(['create', 'notes'])).exitCode).toBe(0);
});
afterEach(cleanupAll);

const kb = (args: string[]) => igw(sandbox, ['kb', ...args], { env, timeoutMs: 30_000 });

async function storeFiles(): Promise<Array<{ path: string; sha256: string; status: string }>> {
  const stores = (await fetch(`${server.url}/v1/vector_stores`, { headers: { authorization: `Bearer ${env['IGW_API_KEY']}` } }).then((response) => response.json())) as { data: Array<{ id: string }> };
  const id = stores.data[0]!.id;
  const files = (await fetch(`${server.url}/v1/vector_stores/${id}/files?limit=100`, { headers: { authorization: `Bearer ${env['IGW_API_KEY']}` } }).then((response) => response.json())) as {
    data: Array<{ status: string; attributes: { path: string; sha256: string } }>;
  };
  return files.data.map((file) => ({ path: file.attributes.path, sha256: file.attributes.sha256, status: file.status })).sort((a, b) => a.path.localeCompare(b.path));
}

function events(stdout: string): Array<Record<string, any>> {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

/** `kb sync FOLDER --watch --json` running in the background, once it reports that it watches. */
async function startWatch() {
  const child = execa(process.execPath, [BIN, 'kb', 'sync', folder, '--store', 'notes', '--watch', '--json'], { cwd: sandbox.cwd, env: { ...sandbox.env, ...env }, extendEnv: false, reject: false, stdin: 'ignore', buffer: false });
  let output = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => (output += chunk));
  const stdout = () => output;
  await until(async () => stdout().includes('"type":"watching"'));
  return { child, stdout };
}

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('store did not follow in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('igw kb', () => {
  it('create, list, search and rm', { timeout: 60_000 }, async () => {
    const list = JSON.parse((await kb(['list', '--json'])).stdout) as Array<{ name: string }>;
    expect(list.map((store) => store.name)).toEqual(['notes']);
    expect((await kb(['sync', folder, '--store', 'notes'])).exitCode).toBe(0);
    const search = JSON.parse((await kb(['search', 'notes', 'rotate api key', '-n', '1', '--json'])).stdout) as { data: Array<{ attributes: { path: string } }> };
    expect(search.data[0]!.attributes.path).toBe('keys.md');
    const plain = await kb(['search', 'notes', 'rotate api key', '-n', '1']);
    expect(plain.stdout).toMatch(/^1\. keys\.md {2}\(score /);
    expect((await kb(['rm', 'notes', '--yes'])).exitCode).toBe(0);
    const missing = await kb(['search', 'notes', 'x']);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('igw kb create');
  });

  it('sync uploads with path and sha256, honours .gitignore and globs; a re-run uploads nothing; renames, edits and deletes follow', { timeout: 90_000 }, async () => {
    const first = events((await kb(['sync', folder, '--store', 'notes', '--json'])).stdout);
    expect(first.filter((event) => event.type === 'uploaded').map((event) => event.path).sort()).toEqual(['keys.md', 'sub/fruit.txt']);
    expect(first.at(-1)).toMatchObject({ type: 'summary', uploaded: 2, indexed: 2, failed: 0 });
    expect((await storeFiles()).map((file) => [file.path, file.status])).toEqual([
      ['keys.md', 'completed'],
      ['sub/fruit.txt', 'completed'],
    ]);

    const again = events((await kb(['sync', folder, '--store', 'notes', '--json'])).stdout);
    expect(again.filter((event) => event.type === 'uploaded')).toEqual([]);
    expect(again.at(-1)).toMatchObject({ type: 'summary', uploaded: 0, unchanged: 2 });

    await rename(path.join(folder, 'keys.md'), path.join(folder, 'api-keys.md'));
    await writeFile(path.join(folder, 'sub', 'fruit.txt'), 'Cherries are red.\n');
    await writeFile(path.join(folder, 'new.md'), 'A new note.\n');
    const third = events((await kb(['sync', folder, '--store', 'notes', '--json'])).stdout);
    expect(third.filter((event) => event.type === 'renamed')).toEqual([expect.objectContaining({ from: 'keys.md', to: 'api-keys.md' })]);
    expect(third.filter((event) => event.type === 'uploaded').map((event) => event.path).sort()).toEqual(['new.md', 'sub/fruit.txt']);
    expect((await storeFiles()).map((file) => file.path)).toEqual(['api-keys.md', 'new.md', 'sub/fruit.txt']);

    await rm(path.join(folder, 'new.md'));
    const fourth = await kb(['sync', folder, '--store', 'notes', '--exclude', 'sub/**']);
    expect(fourth.stdout).toContain('removed new.md');
    expect(fourth.stdout).toContain('removed sub/fruit.txt');
    expect((await storeFiles()).map((file) => file.path)).toEqual(['api-keys.md']);
    const only = await kb(['sync', folder, '--store', 'notes', '--include', '**/*.txt']);
    expect(only.stdout.split('\n').at(-1)).toMatch(/^synced: 1 uploaded, 1 indexed, 0 renamed, 1 removed/);
  });

  it('a file that cannot be indexed: exit 1 naming it and why; the rest is synced', { timeout: 60_000 }, async () => {
    await writeFile(path.join(folder, 'blob.bin'), Buffer.from([0, 1, 2, 3, 255, 254]));
    const result = await kb(['sync', folder, '--store', 'notes']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/blob\.bin failed: .*not supported/);
    expect(result.stdout).toMatch(/synced: 3 uploaded, 2 indexed, .*1 failed/);
  });

  it('--watch follows create, modify, rename and delete; Ctrl-C ends with a summary and exit 0', async () => {
    const { child, stdout } = await startWatch();
    const paths = async () => (await storeFiles()).map((file) => file.path).join(',');

    await writeFile(path.join(folder, 'created.md'), 'Fresh.\n');
    await until(async () => (await paths()) === 'created.md,keys.md,sub/fruit.txt');
    // A burst of saves is one upload.
    for (let i = 0; i < 5; i += 1) await writeFile(path.join(folder, 'created.md'), `Fresh, edit ${i}.\n`);
    const finalSha = createHash('sha256').update('Fresh, edit 4.\n').digest('hex');
    await until(async () => (await storeFiles()).find((file) => file.path === 'created.md')?.sha256 === finalSha);
    await rename(path.join(folder, 'keys.md'), path.join(folder, 'renamed.md'));
    await until(async () => (await paths()) === 'created.md,renamed.md,sub/fruit.txt');
    await rm(path.join(folder, 'sub', 'fruit.txt'));
    await until(async () => (await paths()) === 'created.md,renamed.md');

    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(0);
    const all = events(stdout());
    expect(all.filter((event) => event.type === 'renamed')).toEqual([expect.objectContaining({ from: 'keys.md', to: 'renamed.md' })]);
    const createdUploads = all.filter((event) => event.type === 'uploaded' && event.path === 'created.md').length;
    expect(createdUploads).toBeLessThanOrEqual(3);
    expect(all.at(-1)).toMatchObject({ type: 'summary', failed: 0, interrupted: false });
  }, 60_000);

  it('killed mid-sync, a re-run resumes: nothing twice, nothing missing', async () => {
    for (let i = 0; i < 30; i += 1) await writeFile(path.join(folder, `note-${String(i).padStart(2, '0')}.md`), `Note number ${i}.\n`);
    const child = execa(process.execPath, [BIN, 'kb', 'sync', folder, '--store', 'notes', '--json'], { cwd: sandbox.cwd, env: { ...sandbox.env, ...env }, extendEnv: false, reject: false, stdin: 'ignore', buffer: false });
    let stdout = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.split('"type":"uploaded"').length > 4) child.kill('SIGKILL');
    });
    await child;
    const before = events(stdout.split('\n').slice(0, -1).join('\n')).filter((event) => event.type === 'uploaded').length;
    expect(before).toBeGreaterThanOrEqual(4);
    expect(before).toBeLessThan(32);
    const resumed = events((await kb(['sync', folder, '--store', 'notes', '--json'])).stdout);
    const summary = resumed.at(-1)!;
    expect(summary).toMatchObject({ type: 'summary', failed: 0 });
    expect(summary['uploaded']).toBeLessThanOrEqual(32 - before);
    const files = await storeFiles();
    expect(files).toHaveLength(32);
    expect(new Set(files.map((file) => file.path)).size).toBe(32);
  }, 60_000);
  it('create --embedding-model picks the model; a second store with a taken name is refused with the existing id', { timeout: 60_000 }, async () => {
    const created = await kb(['create', 'papers', '--embedding-model', 'local-embed', '--json']);
    expect(created.exitCode).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'papers', embedding_model: 'local-embed' });
    const notAnEmbedder = await kb(['create', 'chatty', '--embedding-model', 'local-echo']);
    expect(notAnEmbedder.exitCode).toBe(1);
    expect(notAnEmbedder.stderr).toContain('igw models');
    const existing = (JSON.parse((await kb(['list', '--json'])).stdout) as Array<{ id: string; name: string }>).find((store) => store.name === 'notes')!;
    const duplicate = await kb(['create', 'notes']);
    expect(duplicate.exitCode).toBe(1);
    expect(duplicate.stderr).toContain('already exists');
    expect(duplicate.stderr).toContain(existing.id);
    const names = (JSON.parse((await kb(['list', '--json'])).stdout) as Array<{ name: string }>).map((store) => store.name).sort();
    expect(names).toEqual(['notes', 'papers']);
  });

  it('rm never deletes unasked: without a terminal it refuses and names --yes', { timeout: 60_000 }, async () => {
    const refused = await kb(['rm', 'notes']);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(/not a terminal.*igw kb rm \S+ --yes/);
    expect((JSON.parse((await kb(['list', '--json'])).stdout) as unknown[]).length).toBe(1);
    expect((await kb(['rm', 'notes', '--yes'])).exitCode).toBe(0);
    expect(JSON.parse((await kb(['list', '--json'])).stdout)).toEqual([]);
  });

  it.runIf(scriptAvailable('kb rm'))('rm asks on a terminal: "n" keeps the store, "y" deletes it', { timeout: 60_000 }, async () => {
    const onTerminal = (answer: string) =>
      execa('script', ['-qefc', `${process.execPath} ${BIN} kb rm notes`, '/dev/null'], { cwd: sandbox.cwd, env: { ...sandbox.env, ...env }, extendEnv: false, reject: false, input: answer, timeout: 20_000 });
    const kept = await onTerminal('n\n');
    expect(String(kept.stdout)).toMatch(/Delete vector store "notes".*\[y\/N\]/);
    expect((JSON.parse((await kb(['list', '--json'])).stdout) as unknown[]).length).toBe(1);
    const deleted = await onTerminal('y\n');
    expect(deleted.exitCode).toBe(0);
    expect(JSON.parse((await kb(['list', '--json'])).stdout)).toEqual([]);
  });

  it('search prints score, file and the part of the text that matched; a name resolves without a 404', { timeout: 60_000 }, async () => {
    const filler = Array.from({ length: 40 }, (_, index) => `Paragraph ${index} talks about weather, tides and the harbour.`).join(' ');
    await writeFile(path.join(folder, 'long.md'), `${filler} To rotate the signing certificate, run the renewal job on Fridays.\n`);
    expect((await kb(['sync', folder, '--store', 'notes'])).exitCode).toBe(0);
    const result = await kb(['search', 'notes', 'rotate signing certificate renewal', '-n', '1', '--filter', '{"type":"eq","key":"path","value":"long.md"}']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^1\. long\.md {2}\(score 0\.\d{3}\)\n {3}…/);
    expect(result.stdout).toContain('To rotate the signing certificate');
    // `--store NAME` / a name argument: looked up by name, no failed id lookup in the gateway's log.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const folderOfLogs = path.join(sandbox.dataDir, 'logs');
    const lines = (await Promise.all((await readdir(folderOfLogs)).map((name) => readFile(path.join(folderOfLogs, name), 'utf8')))).join('').split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.map((line) => JSON.parse(line) as { status: number; endpoint: string }).filter((entry) => entry.status === 404)).toEqual([]);
  });

  it('list shows failed files as failed, not as a completed store', { timeout: 60_000 }, async () => {
    await writeFile(path.join(folder, 'blob.bin'), Buffer.from([0, 1, 2, 3, 255, 254]));
    expect((await kb(['sync', folder, '--store', 'notes'])).exitCode).toBe(1);
    const [store] = JSON.parse((await kb(['list', '--json'])).stdout) as Array<{ file_counts: Record<string, number> }>;
    expect(store!.file_counts).toMatchObject({ completed: 2, failed: 1, total: 3 });
    const table = (await kb(['list'])).stdout.split('\n');
    expect(table[0]).toMatch(/STATUS +FILES +INDEXED +FAILED/);
    expect(table[1]).toMatch(/notes +completed with failures +3 +2 +1 /);
  });

  it('--watch: a file created while the gateway restarts is sent once it is back, and no file is reported failed', async () => {
    const { child, stdout } = await startWatch();
    await until(async () => (await storeFiles()).filter((file) => file.status === 'completed').length === 2);
    await server.stop('SIGTERM');
    await writeFile(path.join(folder, 'while-down.md'), 'Written while the gateway was restarting.\n');
    await until(async () => stdout().includes('"type":"retrying"'));
    server = await startServer(sandbox, ['--port', String(server.port)]);
    await until(async () => (await storeFiles().catch(() => [])).some((file) => file.path === 'while-down.md' && file.status === 'completed'), 60_000);
    child.kill('SIGINT');
    await child;
    const all = events(stdout());
    expect(all.filter((event) => event.type === 'failed')).toEqual([]);
    expect(all.at(-1)).toMatchObject({ type: 'summary', failed: 0, waiting: 0 });
  }, 90_000);
  it('the gateway killed (SIGKILL) mid-sync: after a restart nothing acknowledged is lost and a re-run completes the store', async () => {
    for (let i = 0; i < 40; i += 1) await writeFile(path.join(folder, `note-${String(i).padStart(2, '0')}.md`), `Note number ${i} about topic ${i % 7}.\n`);
    const child = execa(process.execPath, [BIN, 'kb', 'sync', folder, '--store', 'notes', '--json'], { cwd: sandbox.cwd, env: { ...sandbox.env, ...env }, extendEnv: false, reject: false, stdin: 'ignore', buffer: false });
    let stdout = '';
    let killed: Promise<unknown> | null = null;
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      stdout += chunk;
      if (killed === null && stdout.split('"type":"uploaded"').length > 12) killed = server.stop('SIGKILL');
    });
    const interrupted = await child;
    await killed;
    // The files it could not send wait for the gateway: none is blamed on the file.
    expect(interrupted.exitCode).toBe(1);
    expect(String(interrupted.stderr)).not.toMatch(/fix them/);
    server = await startServer(sandbox, ['--port', String(server.port)]);
    const resumed = await kb(['sync', folder, '--store', 'notes', '--json']);
    expect(resumed.exitCode).toBe(0);
    await until(async () => (await storeFiles()).every((file) => file.status === 'completed'));
    const files = await storeFiles();
    expect(files).toHaveLength(42);
    expect(new Set(files.map((file) => file.path)).size).toBe(42);
    // The Files API still has every attached file (its journal survived the kill).
    const uploads = (await fetch(`${server.url}/v1/files?limit=10000`, { headers: { authorization: `Bearer ${env['IGW_API_KEY']}` } }).then((response) => response.json())) as { data: unknown[] };
    expect(uploads.data.length).toBeGreaterThanOrEqual(42);
    const again = events((await kb(['sync', folder, '--store', 'notes', '--json'])).stdout).at(-1)!;
    expect(again).toMatchObject({ type: 'summary', uploaded: 0, failed: 0, waiting: 0 });
  }, 90_000);
});
