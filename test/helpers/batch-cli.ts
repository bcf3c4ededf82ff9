/**
 * Shared set-up of the `igw batch` CLI tests: a sandbox per test, an optional OpenAI-compatible
 * fake upstream (model "up-chat") written into igw.config.json, a running gateway with a key.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { cleanupAll, igwJson, makeSandbox, startServer, type RunningServer, type Sandbox } from './cli.js';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import { upstreamConfig } from './gateway.js';

/** The chat completion the fake upstream answers: it echoes the last message. */
export function echoCompletion(content: unknown): Record<string, unknown> {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1,
    model: 'real-model-1',
    choices: [{ index: 0, message: { role: 'assistant', content: `echo ${String(content)}` }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
  };
}

/**
 * An upstream whose every answer takes `delayMs`; a row whose last message is "fail" is refused
 * (400): an errored row that no local check can foresee.
 */
export async function startChatUpstream(delayMs = 0): Promise<FakeUpstream> {
  return startFakeUpstream(async (request) => {
    const content = request.body?.messages?.at(-1)?.content ?? '';
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (content === 'fail') return { status: 400, json: { error: { message: 'refused upstream', type: 'invalid_request_error' } } };
    return { json: echoCompletion(content) };
  });
}

export interface BatchCliFixture {
  readonly sandbox: Sandbox;
  /** Starts the fake upstream and writes igw.config.json for it (batches.concurrency as given). */
  upstream(delayMs: number, concurrency: number): Promise<FakeUpstream>;
  /** A key, then `igw serve`; env for the client commands (fast polling). */
  serve(): Promise<{ server: RunningServer; env: Record<string, string> }>;
  /** Writes a file into the sandbox's cwd; returns its path. */
  input(name: string, text: string): Promise<string>;
}

/** Registers the per-test sandbox and clean-up; use at the top of a test file. */
export function useBatchCli(): BatchCliFixture {
  let sandbox: Sandbox | undefined;
  let fake: FakeUpstream | undefined;
  beforeEach(async () => {
    sandbox = await makeSandbox();
  });
  afterEach(async () => {
    await cleanupAll();
    await fake?.close();
    fake = undefined;
  });
  const current = () => {
    if (sandbox === undefined) throw new Error('useBatchCli: no sandbox outside a test');
    return sandbox;
  };
  return {
    get sandbox() {
      return current();
    },
    async upstream(delayMs, concurrency) {
      fake = await startChatUpstream(delayMs);
      await writeFile(path.join(current().cwd, 'igw.config.json'), JSON.stringify({ ...upstreamConfig(fake.url), batches: { concurrency, max_requests_per_file: 50_000 } }));
      return fake;
    },
    async serve() {
      const key = (await igwJson<{ key: string }>(current(), ['keys', 'create', '--json'])).key;
      const server = await startServer(current());
      return { server, env: { IGW_BASE_URL: server.url, IGW_API_KEY: key, IGW_BATCH_POLL_MS: '50' } };
    },
    async input(name, text) {
      const file = path.join(current().cwd, name);
      await writeFile(file, text);
      return file;
    },
  };
}
