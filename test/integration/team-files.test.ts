import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import OpenAI, { toFile } from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PART_BYTES, PostgresFileBytes } from '../../src/files/postgres-file-bytes.js';
import type { TestGateway } from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { eventually, startTeam } from '../helpers/team.js';

/** Team mode (issue 19): files and their bytes in PostgreSQL, served by every instance. */
describe('team mode: files on one PostgreSQL, two gateways', () => {
  let postgres: TestPostgres;
  let url: string;
  let a: TestGateway;
  let b: TestGateway;
  let clientA: OpenAI;
  let clientB: OpenAI;
  let db: pg.Pool;

  beforeAll(async () => {
    postgres = await startPostgres();
    const team = await startTeam(postgres, {});
    url = team.url;
    [a, b] = team.gateways as [TestGateway, TestGateway];
    // One key, created through A, works on both (keys are shared).
    clientA = a.openai();
    clientB = b.openai(a.key);
    db = new pg.Pool({ connectionString: url, max: 2 });
  }, 60_000);
  afterAll(async () => {
    await db?.end();
    await a?.close();
    await b?.close();
    await postgres?.stop();
  });

  it('uploaded on A with the openai client: listed, retrieved and downloaded byte-identical on B; deleted on B, gone on A', async () => {
    const data = randomBytes(300_000);
    const created = await clientA.files.create({ file: await toFile(data, 'blob.bin'), purpose: 'assistants' });
    await eventually(async () => (await clientB.files.list()).data.some((file) => file.id === created.id));
    const retrieved = await clientB.files.retrieve(created.id);
    expect(retrieved).toMatchObject({ id: created.id, filename: 'blob.bin', bytes: data.length, purpose: 'assistants' });
    const content = Buffer.from(await (await clientB.files.content(created.id)).arrayBuffer());
    expect(content.equals(data)).toBe(true);
    // Stored sealed: the plaintext is nowhere in the table.
    const { rows } = await db.query<{ bytes: Buffer }>('SELECT bytes FROM igw_file_parts WHERE file_id = $1 ORDER BY part', [created.id]);
    expect(Buffer.concat(rows.map((row) => row.bytes)).includes(data.subarray(0, 64))).toBe(false);

    await clientB.files.delete(created.id);
    await eventually(async () => {
      const status = await clientA.files.retrieve(created.id).then(
        () => 200,
        (error: { status?: number }) => error.status,
      );
      return status === 404;
    });
    expect((await db.query('SELECT count(*)::int AS n FROM igw_file_parts WHERE file_id = $1', [created.id])).rows[0].n).toBe(0);
  });

  it('a 20 MB upload is stored in ~1 MB parts and streams back intact from the other instance', async () => {
    const data = randomBytes(20 * 1024 * 1024);
    const created = await clientA.files.create({ file: await toFile(data, 'big.bin'), purpose: 'user_data' });
    const { rows } = await db.query<{ n: number; largest: number }>('SELECT count(*)::int AS n, max(length(bytes))::int AS largest FROM igw_file_parts WHERE file_id = $1', [created.id]);
    expect(rows[0]!.n).toBeGreaterThanOrEqual(20);
    expect(rows[0]!.largest).toBeLessThan(PART_BYTES + 128 * 1024);
    await eventually(async () => (await clientB.files.list()).data.some((file) => file.id === created.id));
    const content = Buffer.from(await (await clientB.files.content(created.id)).arrayBuffer());
    expect(content.equals(data)).toBe(true);
  }, 60_000);

  it('an upload that fails midway leaves no parts (one transaction)', async () => {
    const bytes = new PostgresFileBytes(db);
    const failing = Readable.from(
      (async function* () {
        yield randomBytes(PART_BYTES);
        yield randomBytes(PART_BYTES);
        throw new Error('connection dropped');
      })(),
    );
    await expect(bytes.write('file-broken', failing)).rejects.toThrow('connection dropped');
    expect((await db.query("SELECT count(*)::int AS n FROM igw_file_parts WHERE file_id = 'file-broken'")).rows[0].n).toBe(0);
  });
});
