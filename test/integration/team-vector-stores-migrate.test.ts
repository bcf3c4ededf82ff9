import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamDataKey } from '../../src/crypto/data-key.js';
import { copyDataDir } from '../../src/store/postgres/copy-data-dir.js';
import { migrateDatabase } from '../../src/store/postgres/migrate.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { teamConfig } from '../helpers/team.js';

const TEAM_DATA_KEY = '3a'.repeat(32);

/**
 * `igw migrate --from-data-dir` copies vector stores (issue 19 item 5): records, files, chunks
 * (re-sealed for the team) and vectors; a team instance searches them as the data dir did, and
 * finishes a file the data dir left in progress.
 */
describe('team mode: a data dir’s vector stores copied into PostgreSQL', () => {
  let postgres: TestPostgres;
  let upstream: FakeUpstream;
  /** The embedding upstream answers only once the data dir's gateway is gone (its file stays in progress). */
  let answering = false;
  const previousKey = process.env['IGW_DATA_KEY'];

  beforeAll(async () => {
    process.env['IGW_DATA_KEY'] = TEAM_DATA_KEY;
    postgres = await startPostgres();
    upstream = await startFakeUpstream(async (request) => {
      if (!answering) return { hang: true };
      const inputs = ([] as string[]).concat(request.body.input);
      return { json: { object: 'list', model: 'real-embed-1', data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: [1, text.length % 5, 2] })), usage: { prompt_tokens: 1, total_tokens: 1 } } };
    });
  }, 60_000);
  afterAll(async () => {
    await upstream?.close();
    await postgres?.stop();
    if (previousKey === undefined) delete process.env['IGW_DATA_KEY'];
    else process.env['IGW_DATA_KEY'] = previousKey;
  });

  it('copies stores, files, chunks and vectors; the team searches them and finishes a file left in progress', async () => {
    const local = await startTestGateway(upstreamConfig(upstream.url));
    const key = await local.newKey({ name: 'kb', vault: true });
    const client = local.openai(key);
    const kb = await client.vectorStores.create({ name: 'kb' });
    const texts = {
      'returns.md': 'Our return policy: items can be returned within 30 days of delivery for a full refund.',
      'shipping.md': 'Shipping takes three to five business days; express delivery arrives the next day.',
      'chess.md': 'A chess puzzle: white to move and mate in two, starting with the queen sacrifice.',
    };
    for (const [name, text] of Object.entries(texts)) expect((await postJson(`${local.url}/v1/vector_stores/${kb.id}/sources/text`, key, { name, text })).status).toBe(200);
    await local.gateway.app.vectorStores.idle();
    const before = (await client.vectorStores.search(kb.id, { query: 'return policy refund' })).data.map((hit) => [hit.filename, hit.content[0]?.text]);
    const pending = await client.vectorStores.create({ name: 'pending', embedding_model: 'up-embed' } as Parameters<typeof client.vectorStores.create>[0]);
    expect((await postJson(`${local.url}/v1/vector_stores/${pending.id}/sources/text`, key, { name: 'later.md', text: 'Finished by the team after the copy.' })).status).toBe(200);
    await local.gateway.close();

    const url = await postgres.createDatabase();
    await migrateDatabase(url);
    // The data dir ran with the team's key (IGW_DATA_KEY above): the same key opens and seals.
    const keys = { source: await teamDataKey(process.env), team: await teamDataKey(process.env) };
    const copy = await copyDataDir(local.dataDir, url, keys);
    expect(copy.copied).toMatchObject({ vector_stores: 2, vector_store_files: 4 });
    expect(copy.copied.vector_store_chunks).toBeGreaterThanOrEqual(3);
    // A second copy keeps what is there.
    expect((await copyDataDir(local.dataDir, url, keys)).skipped).toMatchObject({ vector_stores: 2 });

    answering = true;
    let team: TestGateway | undefined;
    try {
      team = await startTestGateway(teamConfig(upstreamConfig(upstream.url), url));
      const onTeam = team.openai(key);
      expect((await onTeam.vectorStores.retrieve(kb.id)).file_counts).toMatchObject({ completed: 3, total: 3 });
      expect((await onTeam.vectorStores.search(kb.id, { query: 'return policy refund' })).data.map((hit) => [hit.filename, hit.content[0]?.text])).toEqual(before);
      await team.gateway.app.vectorStores.idle();
      expect((await onTeam.vectorStores.retrieve(pending.id)).file_counts).toMatchObject({ completed: 1, in_progress: 0, total: 1 });
    } finally {
      await team?.close();
      await local.close();
    }
  }, 60_000);
});
