import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { eventually, startTeam } from '../helpers/team.js';

/** Team mode (issue 19): the vault (blueprints, skills) is one record per account in PostgreSQL, read by every instance. */
describe('team mode: the vault on one PostgreSQL, two gateways', () => {
  let postgres: TestPostgres;
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    postgres = await startPostgres();
    [a, b] = (await startTeam(postgres, {})).gateways as [TestGateway, TestGateway];
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await postgres?.stop();
  });

  it('a vault created and a blueprint saved through A open on B with the same vault key; a wrong key is refused there too; removed on B, gone on A', async () => {
    const vaultA = a.gateway.app.store.vault;
    const vaultB = b.gateway.app.store.vault;
    expect(await vaultB.exists('default')).toBe(false);
    const saved = await (await vaultA.unlock('default', 'the team passphrase', { create: true })).put('blueprint', { name: 'reviewer', system: 'review the diff' });
    // The vault's creation and the blueprint are two writes: wait for the second.
    await eventually(async () => (await vaultB.exists('default')) && (await vaultB.unlock('default', 'the team passphrase')).get('blueprint', saved.id) !== undefined, 5000);
    const onB = await vaultB.unlock('default', 'the team passphrase');
    expect(onB.get('blueprint', saved.id)?.document).toEqual({ name: 'reviewer', system: 'review the diff' });
    await expect(vaultB.unlock('default', 'another passphrase')).rejects.toMatchObject({ reason: 'wrong-key' });

    expect(await onB.remove('blueprint', saved.id)).toBe(true);
    await eventually(async () => (await vaultA.unlock('default', 'the team passphrase')).get('blueprint', saved.id) === undefined, 5000);
  }, 60_000);
});
