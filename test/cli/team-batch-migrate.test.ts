import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startChatUpstream } from '../helpers/batch-cli.js';
import { chatLines, uploadBatchFile, waitForBatch } from '../helpers/batches.js';
import { cleanupAll, igwJson, makeSandbox, startServer } from '../helpers/cli.js';
import { TEAM_TEST_DATA_KEY } from '../helpers/data-key-env.js';
import type { FakeUpstream } from '../helpers/fake-upstream.js';
import { upstreamConfig } from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

interface CopyReport {
  from_data_dir: { copied: Record<string, number>; skipped: Record<string, number> };
}

/** `igw migrate --from-data-dir` with batches (issue 19 item 4): records, and the finished rows of a running batch. */
describe('igw migrate --from-data-dir: batches', () => {
  let postgres: TestPostgres;
  let upstream: FakeUpstream;

  beforeAll(async () => {
    postgres = await startPostgres();
    upstream = await startChatUpstream(100);
  }, 60_000);
  afterEach(() => cleanupAll());
  afterAll(async () => {
    await upstream?.close();
    await postgres?.stop();
  });

  it('a finished batch is copied as it is; a running one finishes in team mode without running its finished rows again', async () => {
    const databaseUrl = await postgres.createDatabase();
    const sandbox = await makeSandbox();
    await writeFile(path.join(sandbox.cwd, 'igw.config.json'), JSON.stringify({ ...upstreamConfig(upstream.url), batches: { concurrency: 2, max_requests_per_file: 50_000 } }));
    const teamConfig = path.join(sandbox.root, 'team.json');
    await writeFile(teamConfig, JSON.stringify({ ...upstreamConfig(upstream.url), store: { kind: 'postgres', url: databaseUrl } }));

    // On one machine (JSON store): one batch finishes, another is stopped part-way.
    const key = (await igwJson<{ key: string }>(sandbox, ['keys', 'create', '--json'])).key;
    const local = await startServer(sandbox);
    const onLocal = new OpenAI({ apiKey: key, baseURL: `${local.url}/v1`, maxRetries: 0 });
    const small = await onLocal.batches.create({ input_file_id: await uploadBatchFile(onLocal, chatLines(3, 'up-chat', 'small')), endpoint: '/v1/chat/completions', completion_window: '24h' });
    await waitForBatch(onLocal, small.id);
    const rows = 30;
    const running = await onLocal.batches.create({ input_file_id: await uploadBatchFile(onLocal, chatLines(rows, 'up-chat')), endpoint: '/v1/chat/completions', completion_window: '24h' });
    while (((await onLocal.batches.retrieve(running.id)).request_counts?.completed ?? 0) < 8) await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await local.stop('SIGTERM')).exitCode).toBe(0);
    const callsBefore = upstream.requests.length;

    // The team's key is not the data dir's own (vault.key): rows and results are opened with that one and sealed again under the team's.
    const teamKey = TEAM_TEST_DATA_KEY;
    expect((await readFile(path.join(sandbox.dataDir, 'vault.key'), 'utf8')).trim()).not.toBe(teamKey);
    const report = await igwJson<CopyReport>(sandbox, ['--config', teamConfig, 'migrate', '--from-data-dir', sandbox.dataDir, '--json'], { env: { IGW_DATA_KEY: teamKey } });
    expect(report.from_data_dir.copied).toMatchObject({ batches: 2, batch_rows: rows });
    expect(report.from_data_dir.skipped).toMatchObject({ batches: 0 });
    const again = await igwJson<CopyReport>(sandbox, ['--config', teamConfig, 'migrate', '--from-data-dir', sandbox.dataDir, '--json'], { env: { IGW_DATA_KEY: teamKey } });
    expect(again.from_data_dir).toMatchObject({ copied: { batches: 0, batch_rows: 0 }, skipped: { batches: 2 } });

    // A team instance (its own data dir, the team's key) finishes the running batch.
    const team = await startServer(sandbox, ['--config', teamConfig], { env: { IGW_DATA_DIR: path.join(sandbox.root, 'team-data'), IGW_DATA_KEY: teamKey }, settle: false });
    const onTeam = new OpenAI({ apiKey: key, baseURL: `${team.url}/v1`, maxRetries: 0 });
    expect((await onTeam.batches.retrieve(small.id)).status).toBe('succeeded');
    const done = await waitForBatch(onTeam, running.id, undefined, 30_000);
    expect(done.status).toBe('succeeded');
    expect(done.request_counts).toMatchObject({ total: rows, completed: rows });
    const ids = (await (await onTeam.files.content(done.output_file_id!)).text()).split('\n').filter((line) => line !== '').map((line) => (JSON.parse(line) as { custom_id: string }).custom_id);
    expect(ids).toEqual(Array.from({ length: rows }, (_, index) => `row-${index}`));
    // Only the rows not finished on the machine ran in team mode (a row in flight at the stop ran again).
    const teamCalls = upstream.requests.slice(callsBefore).map((request) => String(request.body?.messages?.at(-1)?.content));
    const finishedBefore = rows - teamCalls.length;
    expect(finishedBefore).toBeGreaterThanOrEqual(8 - 2);
    expect(new Set(teamCalls).size).toBe(teamCalls.length);
    await team.stop();
  }, 120_000);
});
