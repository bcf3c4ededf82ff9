import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_ROUTES, ROUTES } from '../../src/http/routes.js';
import type { Logger } from '../../src/util/logger.js';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { igwJson, makeSandbox, startServer } from '../helpers/cli.js';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { sendRaw, type RawOutcome } from '../helpers/raw-http.js';
import { allRoutes, requestFor, type FuzzCase, type FuzzIds } from './request-arbitraries.js';

/**
 * Issue 14: thousands of malformed requests at every route of a real gateway on the built-in
 * models, over raw sockets. The process must stay up, every answer must be the spec's envelope
 * with a 4xx (or a mapped upstream 5xx, INFERENCE_*), nothing may hang, and a normal request
 * must still succeed afterwards.
 *
 * `npm test` runs a fixed seed and a bounded number of requests; a longer run:
 *   IGW_FUZZ_RUNS=10000 npx vitest run test/fuzz          (IGW_FUZZ_SEED=<n> for another seed)
 * and against `bin/igw.js serve` as its own process (after `npm run build`), where a crash is an exit:
 *   IGW_FUZZ_SERVE=1 IGW_FUZZ_RUNS=10000 npx vitest run test/fuzz
 */

const RUNS = Number(process.env['IGW_FUZZ_RUNS'] ?? 3000);
const SEED = Number(process.env['IGW_FUZZ_SEED'] ?? 14);
/** A request without an answer by then is a hang. */
const HANG_MS = 15_000;

type Verdict = 'ok' | 'mapped-5xx' | 'hang' | 'closed-without-answer' | 'cut-stream' | 'unmapped-5xx' | 'not-an-envelope' | 'unexpected-status';
const FAILURES: ReadonlySet<Verdict> = new Set(['hang', 'closed-without-answer', 'cut-stream', 'unmapped-5xx', 'not-an-envelope', 'unexpected-status']);

/** The error envelope of any dialect: `error.code` and `error.message` are strings. */
function isEnvelope(body: Buffer): { ok: boolean; code?: string } {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { error?: { code?: unknown; message?: unknown } };
    const ok = typeof parsed.error?.code === 'string' && typeof parsed.error.message === 'string';
    return ok ? { ok, code: parsed.error!.code as string } : { ok };
  } catch {
    return { ok: false };
  }
}

function judge(fuzzCase: FuzzCase, outcome: RawOutcome): Verdict {
  if (outcome.kind === 'timeout') return 'hang';
  if (outcome.kind === 'closed') return fuzzCase.incomplete ? 'ok' : 'closed-without-answer';
  const { response } = outcome;
  const head = fuzzCase.request.method === 'HEAD';
  if (!response.complete) return fuzzCase.incomplete ? 'ok' : 'cut-stream';
  if (response.status >= 200 && response.status < 300) return 'ok';
  if (response.status >= 400 && response.status < 500) return head || isEnvelope(response.body).ok ? 'ok' : 'not-an-envelope';
  if (response.status >= 500) {
    const envelope = isEnvelope(response.body);
    if (!envelope.ok) return 'not-an-envelope';
    return envelope.code?.startsWith('INFERENCE_') === true ? 'mapped-5xx' : 'unmapped-5xx';
  }
  return 'unexpected-status';
}

/** A failing case in a form a person can replay (bytes shown as escaped text, cut to a readable size). */
function describeCase(fuzzCase: FuzzCase, outcome: RawOutcome): string {
  const { request } = fuzzCase;
  const text = (value: Buffer | string, max: number) => JSON.stringify((typeof value === 'string' ? value : value.toString('latin1')).slice(0, max));
  const answer = outcome.kind === 'response' ? `${outcome.response.status} ${text(outcome.response.body, 300)}` : `${outcome.kind} after ${outcome.bytes} bytes`;
  return [
    `${fuzzCase.route}: ${request.method} ${text(request.target, 200)}`,
    `  headers: ${request.headers.map(([name, value]) => `${name}=${text(value, 60)}`).join(' ')}`,
    `  body (${request.body.length} bytes): ${text(request.body, 300)}`,
    `  answer: ${answer}`,
  ].join('\n');
}

/** The gateway under fuzz: in this process (default), or `igw serve` as its own process (IGW_FUZZ_SERVE=1). */
interface FuzzTarget {
  url: string;
  key: string;
  /** Error-level log lines so far: message and error text. */
  errorLogs(): Array<{ message: string; error: string }>;
  /** Undefined while the process runs; how it ended otherwise. */
  exit(): string | undefined;
  close(): Promise<void>;
}

const FUZZ_CONFIG = {
  default_plan: 'developer',
  plans: { developer: { benefits: ['advanced_models', 'api_usage', 'studio_access'], requests_per_minute: 100_000_000 } },
};

async function inProcessTarget(): Promise<FuzzTarget> {
  const logs: Array<{ message: string; error: string }> = [];
  const logger: Logger = { info: () => undefined, warn: () => undefined, error: (message, fields) => void logs.push({ message, error: String(fields?.['error'] ?? '').slice(0, 2000) }) };
  const igw: TestGateway = await startTestGateway(FUZZ_CONFIG, {}, { logger });
  const key = await igw.newKey({ name: 'fuzz', vault: true });
  return { url: igw.url, key, errorLogs: () => logs, exit: () => undefined, close: () => igw.close() };
}

/** `bin/igw.js serve` in a sandbox (needs `npm run build`): a crash is a real process exit here. */
async function spawnedTarget(): Promise<FuzzTarget> {
  const sandbox = await makeSandbox();
  await writeFile(path.join(sandbox.cwd, 'igw.config.json'), JSON.stringify(FUZZ_CONFIG));
  const { key } = await igwJson<{ key: string }>(sandbox, ['keys', 'create', '--vault', '--json']);
  const server = await startServer(sandbox);
  let exit: string | undefined;
  void server.exited.then((result) => (exit = `exit code ${String(result.exitCode)}, signal ${String(result.signal)}`));
  const errorLogs = () =>
    server
      .stderr()
      .split('\n')
      .flatMap((line) => {
        try {
          const entry = JSON.parse(line) as { level?: string; msg?: string; error?: unknown };
          return entry.level === 'error' ? [{ message: entry.msg ?? '', error: String(entry.error ?? '').slice(0, 2000) }] : [];
        } catch {
          return line.trim() === '' ? [] : [{ message: 'stderr', error: line.slice(0, 2000) }];
        }
      });
  return {
    url: server.url,
    key,
    errorLogs,
    exit: () => exit,
    async close() {
      if (exit === undefined) await server.stop('SIGTERM');
      await sandbox.cleanup();
    },
  };
}

describe('fuzzing every route of a real gateway (issue 14)', () => {
  let target: FuzzTarget;
  let key: string;
  let ids: FuzzIds;

  beforeAll(async () => {
    target = process.env['IGW_FUZZ_SERVE'] === '1' ? await spawnedTarget() : await inProcessTarget();
    key = target.key;
    ids = await createFixtures(target.url, key);
  }, 60_000);
  afterAll(async () => target?.close());

  it(`${RUNS} malformed requests (seed ${SEED}): no crash, no hang, only envelopes with 4xx or mapped 5xx`, async () => {
    const port = Number(new URL(target.url).port);
    const context = { port, key, ids };
    const routes = allRoutes(ROUTES, PUBLIC_ROUTES);
    const anyRequest = fc.oneof(...routes.map((route) => requestFor(route, context)));
    const verdicts = new Map<Verdict, number>();
    const statuses = new Map<number, number>();
    const routesHit = new Set<string>();
    const examples: string[] = [];
    const slowest = { ms: 0, route: '' };
    const started = performance.now();

    await fc.assert(
      fc.asyncProperty(anyRequest, async (fuzzCase) => {
        const sentAt = performance.now();
        const outcome = await sendRaw(port, fuzzCase.request, HANG_MS, fuzzCase.incomplete);
        const tookMs = performance.now() - sentAt;
        if (tookMs > slowest.ms) Object.assign(slowest, { ms: Math.round(tookMs), route: fuzzCase.route });
        const verdict = judge(fuzzCase, outcome);
        verdicts.set(verdict, (verdicts.get(verdict) ?? 0) + 1);
        if (outcome.kind === 'response') statuses.set(outcome.response.status, (statuses.get(outcome.response.status) ?? 0) + 1);
        routesHit.add(fuzzCase.route);
        // Every finding is kept (not only the first): one run reports all the kinds of fault.
        if (FAILURES.has(verdict) && examples.length < 20) examples.push(`[${verdict}] ${describeCase(fuzzCase, outcome)}`);
      }),
      { seed: SEED, numRuns: RUNS },
    );

    const seconds = (performance.now() - started) / 1000;
    const summary = {
      requests: RUNS,
      seed: SEED,
      seconds: Number(seconds.toFixed(1)),
      verdicts: Object.fromEntries(verdicts),
      statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
      routes_hit: `${routesHit.size}/${routes.length}`,
      slowest,
      error_logs: target.errorLogs().length,
      process: target.exit() ?? 'up',
    };
    if (process.env['IGW_FUZZ_RUNS'] !== undefined || examples.length > 0) console.log(`fuzz summary ${JSON.stringify(summary)}`);
    expect(examples, `${examples.join('\n\n')}\n\nerror logs:\n${target.errorLogs().map((log) => `${log.message}: ${log.error}`).join('\n')}`).toEqual([]);
    // Each route of the table was reached, and no error was thrown past the endpoints.
    expect(routesHit.size).toBe(routes.length);
    expect(target.exit()).toBeUndefined();
    expect(target.errorLogs().filter((log) => log.message === 'unhandled error' || log.message === 'error response failed' || log.message === 'stderr')).toEqual([]);

    // The gateway is still up and serving.
    const normal = await postJson(`${target.url}/v1/chat/completions`, key, { model: 'local-echo', messages: [{ role: 'user', content: 'still here?' }] });
    expect(normal.status).toBe(200);
    expect(normal.json.choices[0].message.content).toBe('still here?');
  }, Math.max(60_000, RUNS * 100));
});

/** The resources parameterised routes point at: a vector store with a file, a file batch, a batch. */
async function createFixtures(url: string, key: string): Promise<FuzzIds> {
  const auth = { authorization: `Bearer ${key}` };
  const upload = async (name: string, content: string, purpose: string): Promise<string> => {
    const form = new FormData();
    form.append('purpose', purpose);
    form.append('file', new Blob([content], { type: 'text/plain' }), name);
    const response = await fetch(`${url}/v1/files`, { method: 'POST', headers: auth, body: form });
    const json = (await response.json()) as { id: string };
    expect(response.status, JSON.stringify(json)).toBe(200);
    return json.id;
  };
  const file = await upload('notes.txt', 'hello fuzz world, a small document about testing', 'assistants');
  const batchLine = JSON.stringify({ custom_id: 'r1', method: 'POST', url: '/v1/chat/completions', body: { model: 'local-echo', messages: [{ role: 'user', content: 'hi' }] } });
  const batchInputFile = await upload('batch.jsonl', `${batchLine}\n`, 'batch');
  const created = await postJson(`${url}/v1/vector_stores`, key, { name: 'fuzz', file_ids: [file] });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  const vectorStore = created.json.id as string;
  const fileBatch = await postJson(`${url}/v1/vector_stores/${vectorStore}/file_batches`, key, { file_ids: [file] });
  expect(fileBatch.status, JSON.stringify(fileBatch.json)).toBe(200);
  const batch = await postJson(`${url}/v1/batches`, key, { input_file_id: batchInputFile, endpoint: '/v1/chat/completions', completion_window: '24h' });
  expect(batch.status, JSON.stringify(batch.json)).toBe(200);
  return { vectorStore, file, batchInputFile, fileBatch: fileBatch.json.id as string, batch: batch.json.id as string };
}
