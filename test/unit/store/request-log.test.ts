import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RequestLog, type RequestLogEntry } from '../../../src/store/request-log.js';

function entry(time: string, index: number): RequestLogEntry {
  return {
    time,
    request_id: `req_${index}`,
    key_id: index % 2 === 0 ? 'key_a' : null,
    account: 'acct_default',
    endpoint: '/v1/chat/completions',
    model: 'm',
    provider: null,
    route: null,
    status: 200,
    error_code: null,
    latency_ms: index,
    input_tokens: 1,
    output_tokens: 2,
    eur: '0.000001',
    energy: '0',
    paid_with: null,
    energy_kwh: 0,
    carbon_g_co2: 0,
    stream: false,
    ...(index === 3 ? { ignored_params: ['seed', 'line\nbreak'] } : {}),
  };
}

describe('RequestLog', () => {
  it('writes one JSON line per entry, in order, in the file of the entry\'s UTC day', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'igw-request-log-'));
    const log = new RequestLog(folder);
    try {
      const entries = [
        entry('2026-11-26T23:59:59.998Z', 0),
        entry('2026-11-26T23:59:59.999Z', 1),
        entry('2026-11-27T00:00:00.000Z', 2),
        entry('2026-11-27T00:00:00.001Z', 3),
      ];
      for (const item of entries) log.append(item);
      await log.close();
      expect((await readdir(folder)).sort()).toEqual(['requests-2026-11-26.jsonl', 'requests-2026-11-27.jsonl']);
      expect(await readFile(path.join(folder, 'requests-2026-11-26.jsonl'), 'utf8')).toBe(`${JSON.stringify(entries[0])}\n${JSON.stringify(entries[1])}\n`);
      expect(await readFile(path.join(folder, 'requests-2026-11-27.jsonl'), 'utf8')).toBe(`${JSON.stringify(entries[2])}\n${JSON.stringify(entries[3])}\n`);
      // A later append after a flush continues the same file on its own line.
      log.append(entry('2026-11-27T00:00:01.000Z', 4));
      await log.flush();
      await log.close();
      const lines = (await readFile(path.join(folder, 'requests-2026-11-27.jsonl'), 'utf8')).split('\n');
      expect(lines).toHaveLength(4);
      expect(JSON.parse(lines[2]!)).toEqual(entry('2026-11-27T00:00:01.000Z', 4));
      expect(lines[3]).toBe('');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
