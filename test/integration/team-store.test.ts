import { readdir } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, setAccount } from '../../src/admin/accounts-admin.js';
import { revokeKey } from '../../src/admin/keys-admin.js';
import { MIGRATIONS_DIR, migrateDatabase } from '../../src/store/postgres/migrate.js';
import { readPostgresRequestLog } from '../../src/store/postgres/request-log.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, upstreamConfig, type TestGateway } from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { eventually, startTeam } from '../helpers/team.js';

function completion() {
  return {
    id: 'chatcmpl-team',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'real-model-1',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 },
  };
}

const chat = { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }] };

/** Team mode (issue 19, DESIGN §4): two gateways on one real PostgreSQL share keys, accounts, balances and the request log. */
describe('team mode: two gateways on one PostgreSQL', () => {
  let postgres: TestPostgres;
  let upstream: FakeUpstream;
  let databaseUrl: string;
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    postgres = await startPostgres();
    // Each answer takes a little while, so concurrent requests really are in flight together.
    upstream = await startFakeUpstream(async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return { json: completion() };
    });
    const team = await startTeam(postgres, upstreamConfig(upstream.url));
    databaseUrl = team.url;
    [a, b] = team.gateways as [TestGateway, TestGateway];
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await upstream?.close();
    await postgres?.stop();
  });

  it('migrations ran once: a second run (two starting together) applies nothing and waits for the lock', async () => {
    const [first, second] = await Promise.all([migrateDatabase(databaseUrl), migrateDatabase(databaseUrl)]);
    expect([...first.applied, ...second.applied]).toEqual([]);
    const fresh = await postgres.createDatabase();
    const together = await Promise.all([migrateDatabase(fresh), migrateDatabase(fresh), migrateDatabase(fresh)]);
    // Exactly one of the three applied the schema (every migration file); the others waited and found it current.
    const files = (await readdir(MIGRATIONS_DIR)).filter((name) => name.endsWith('.sql'));
    expect(together.map((result) => result.applied.length).sort()).toEqual([0, 0, files.length]);
  });

  it('a key created on one instance works on the other; revoked there, it stops on both within a second', async () => {
    const key = await a.newKey({ name: 'team-key' });
    const onB = await postJson(`${b.url}/v1/chat/completions`, key, chat);
    expect(onB.status).toBe(200);
    const id = [...b.gateway.app.store.keys.list()].find((record) => record.name === 'team-key')!.id;
    await revokeKey(b.gateway.app.store, id);
    const waited = await eventually(() => a.gateway.app.store.keys.get(id)?.revoked_at !== null);
    expect(waited).toBeLessThan(1000);
    for (const gateway of [a, b]) {
      const refused = await postJson(`${gateway.url}/v1/chat/completions`, key, chat);
      expect(refused.status).toBe(401);
    }
  });

  it('64 concurrent paid requests across both instances: every debit lands, the balance ends no lower than the in-flight requests allow, then both refuse', async () => {
    await createAccount(a.gateway.app.store, a.config, 'team');
    await setAccount(a.gateway.app.store, a.config, 'team', { energy: '2', credits: '0' });
    const key = await a.newKey({ account: 'team' });
    await eventually(() => b.gateway.app.store.accounts.get('team')?.energy === '2' && b.gateway.app.store.keys.list().some((record) => record.account === 'team'));
    const results = await Promise.all(Array.from({ length: 64 }, (_, index) => postJson(`${(index % 2 === 0 ? a : b).url}/v1/chat/completions`, key, chat)));
    const paid = results.filter((result) => result.status === 200);
    const refused = results.filter((result) => result.status !== 200);
    for (const result of refused) expect([result.status, result.json.error.code]).toEqual([402, 'BILLING_2001']);
    await a.gateway.app.store.accounts.flush();
    await b.gateway.app.store.accounts.flush();
    const cost = paid.reduce((sum, result) => sum + Number(result.json.billing_cost.energy), 0);
    const perRequest = Number(paid[0]!.json.billing_cost.energy);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const { rows } = await client.query<{ energy: string }>("SELECT energy::text AS energy FROM igw_accounts WHERE id = 'team'");
    await client.end();
    const balance = Number(rows[0]!.energy);
    // Atomic debits: not one lost, whichever instance made it (a read-modify-write would lose some here).
    expect(balance).toBeCloseTo(2 - cost, 9);
    // DESIGN §2: admitted while the balance was positive, so at worst every request in flight (64) overshoots.
    expect(balance).toBeGreaterThanOrEqual(-64 * perRequest);
    expect(balance).toBeLessThan(0);
    // Both instances see the final balance within a second, and both refuse from then on.
    await eventually(() => a.gateway.app.store.accounts.get('team')!.energy === b.gateway.app.store.accounts.get('team')!.energy && Number(b.gateway.app.store.accounts.get('team')!.energy) === balance);
    const before = upstream.requests.length;
    for (const gateway of [a, b, a, b]) {
      const next = await postJson(`${gateway.url}/v1/chat/completions`, key, chat);
      expect([next.status, next.json.error?.code]).toEqual([402, 'BILLING_2001']);
    }
    expect(upstream.requests.length).toBe(before);
  });

  it('the request log is one table: lines from both instances', async () => {
    await a.gateway.app.store.requestLog.flush();
    await b.gateway.app.store.requestLog.flush();
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const lines = await readPostgresRequestLog(client, Date.now() - 60_000);
    await client.end();
    const paid = lines.filter((line) => line.account === 'team' && line.status === 200);
    const refused = lines.filter((line) => line.account === 'team' && line.error_code === 'BILLING_2001');
    expect(paid.length).toBeGreaterThan(0);
    expect(paid.length + refused.length).toBe(68);
    expect(paid[0]).toMatchObject({ endpoint: '/v1/chat/completions', model: 'up-chat', provider: 'up' });
  });
});
