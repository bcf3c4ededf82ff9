import { describe, expect, it } from 'vitest';
import { startGateway } from '../../src/app/gateway.js';
import { DataDirLockedError } from '../../src/store/lock.js';
import { silentLogger } from '../../src/util/logger.js';
import { startFakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, upstreamConfig } from '../helpers/gateway.js';

const chunk = (content: string, finish: string | null = null) =>
  JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: finish }] });

describe('graceful shutdown and the data-dir lock', () => {
  it('close() lets an in-flight stream finish, then refuses new connections', async () => {
    const upstream = await startFakeUpstream(() => ({ sse: [chunk('a'), chunk('b'), chunk('c'), chunk('', 'stop')], delayMs: 150 }));
    const igw = await startTestGateway(upstreamConfig(upstream.url));
    try {
      const stream = await igw.openai().chat.completions.create({ model: 'up-chat', stream: true, messages: [{ role: 'user', content: 'hi' }] });
      const closing = igw.gateway.close();
      let text = '';
      for await (const part of stream) text += part.choices[0]?.delta?.content ?? '';
      await closing;
      expect(text).toBe('abc');
      await expect(fetch(`${igw.url}/v1/models`)).rejects.toThrow();
    } finally {
      await igw.close();
      await upstream.close();
    }
  });

  it('a second gateway on the same data dir refuses to start; after close it can', async () => {
    const igw = await startTestGateway();
    try {
      await expect(startGateway({ dataDir: igw.dataDir, config: igw.config, port: 0, logger: silentLogger })).rejects.toBeInstanceOf(DataDirLockedError);
      await igw.gateway.close();
      const again = await startGateway({ dataDir: igw.dataDir, config: igw.config, port: 0, logger: silentLogger });
      // State survived: the key made before still authenticates.
      const response = await fetch(`${again.url}/v1/models`, { headers: { authorization: `Bearer ${igw.key}` } });
      expect(response.status).toBe(200);
      await again.close();
    } finally {
      await igw.close();
    }
  });
});

describe('data dir housekeeping', () => {
  it('temp uploads left by a crashed server are removed at start', async () => {
    const { mkdir, writeFile, readdir } = await import('node:fs/promises');
    const path = await import('node:path');
    const igw = await startTestGateway();
    await igw.gateway.close();
    await mkdir(path.join(igw.dataDir, 'tmp'), { recursive: true });
    await writeFile(path.join(igw.dataDir, 'tmp', 'upload-orphan'), 'partial audio');
    const again = await startGateway({ dataDir: igw.dataDir, config: igw.config, port: 0, logger: silentLogger });
    try {
      expect(await readdir(path.join(igw.dataDir, 'tmp')).catch(() => [])).toEqual([]);
    } finally {
      await again.close();
      await igw.close();
    }
  });
});
