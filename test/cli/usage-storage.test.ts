import { afterEach, describe, expect, it } from 'vitest';
import { createKey } from '../../src/admin/keys-admin.js';
import { startGateway } from '../../src/app/gateway.js';
import { buildConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/util/logger.js';
import { cleanupAll, igw, igwJson, makeSandbox } from '../helpers/cli.js';
import { postJson } from '../helpers/gateway.js';
import { ManualTime } from '../helpers/manual-time.js';

afterEach(cleanupAll);

interface UsageReport {
  rows: Array<{ group: string; requests: number; eur: string }>;
  total: { requests: number; eur: string };
}

describe('igw usage with vector-store storage', () => {
  it('shows the daily storage charge and counts it in the EUR total', async () => {
    const sandbox = await makeSandbox();
    // A gateway in-process on the sandbox's data dir, on a manual clock: one stored day, then a clean stop.
    const time = new ManualTime(Date.UTC(2026, 2, 1, 1));
    const config = buildConfig({ billing: { storage_eur_per_gb_day: 1_000_000 }, plans: { developer: { storage_free_gb: 0 } } }, null, {});
    const gateway = await startGateway({ dataDir: sandbox.dataDir, config, port: 0, host: '127.0.0.1', logger: silentLogger, clock: time.clock, timers: time.timers });
    const { key } = await createKey(gateway.app.store, config, { name: 'kb', vault: true });
    const store = (await postJson(`${gateway.url}/v1/vector_stores`, key, { name: 'billed' })).json;
    expect((await postJson(`${gateway.url}/v1/vector_stores/${store.id}/sources/text`, key, { name: 'a.txt', text: 'Stored for a day and billed for it. '.repeat(20) })).status).toBe(200);
    await gateway.app.vectorStores.idle();
    await time.jump(24 * 3_600_000);
    await gateway.close();

    const report = await igwJson<UsageReport>(sandbox, ['usage', '--since', '2026-03-01', '--json']);
    const storage = report.rows.find((row) => row.group === '(vector store storage)');
    expect(storage).toMatchObject({ requests: 0 });
    expect(Number(storage!.eur)).toBeGreaterThan(0);
    expect(report.total.eur).toBe(storage!.eur);
    const table = await igw(sandbox, ['usage', '--since', '2026-03-01']);
    expect(table.exitCode).toBe(0);
    expect(table.stdout).toContain('(vector store storage)');
  });
});
