import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startTeam, teamConfig } from '../helpers/team.js';

const echo = (content: string) => ({ model: 'local-echo', messages: [{ role: 'user', content }] });

/**
 * The `igw serve` dashboard's "today" in team mode (issue 19): seeded at start from the shared
 * request log, so it counts every instance's requests of the UTC day before this start, then
 * this process's own.
 */
describe('team mode: the dashboard’s "today" reads the PostgreSQL request log', () => {
  let postgres: TestPostgres;
  let databaseUrl: string;
  let a: TestGateway;
  let b: TestGateway | undefined;

  beforeAll(async () => {
    postgres = await startPostgres();
    const team = await startTeam(postgres, {}, 1);
    databaseUrl = team.url;
    a = team.gateways[0]!;
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await postgres?.stop();
  });

  it('a second instance starts with the first one’s requests of today, then adds its own', async () => {
    for (const content of ['one', 'two']) expect((await postJson(`${a.url}/v1/chat/completions`, a.key, echo(content))).status).toBe(200);
    expect((await postJson(`${a.url}/v1/chat/completions`, a.key, { model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] })).status).toBe(404);
    await a.gateway.app.store.requestLog.flush();

    b = await startTestGateway(teamConfig({}, databaseUrl));
    // Nothing in B's own data dir: what it counts came from the table.
    expect(b.gateway.app.store.kind).toBe('postgres');
    await b.gateway.app.activity.seedTodayFrom(b.gateway.app.store.requestLog);
    const seeded = b.gateway.app.activity.snapshot().today;
    expect(seeded).toMatchObject({ day: new Date().toISOString().slice(0, 10), requests: 3, errors: 1 });

    expect((await postJson(`${b.url}/v1/chat/completions`, b.key, echo('three'))).status).toBe(200);
    expect(b.gateway.app.activity.snapshot().today).toMatchObject({ requests: 4, errors: 1 });
    // A's own view is its own process's: it never read B's line.
    expect(a.gateway.app.activity.snapshot().today).toMatchObject({ requests: 3, errors: 1 });
  });
});
