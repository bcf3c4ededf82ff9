// Codex CLI (`codex exec`, default features) against a real `igw serve`, as a user sets it up:
// a custom model provider on the Responses wire whose base_url is igw (config.toml in CODEX_HOME).
// Four runs: the built-in local-echo model (a plain answer), then an OpenAI-kind fake upstream
// on loopback through which Codex runs a tool loop — translated to chat completions (with a model
// name Codex does not know, and with gpt-5.5, for which Codex adds its custom apply_patch and
// tool_search tools), and passed natively to a provider that speaks the Responses API.
// Codex talks to igw through a recording proxy; `node run.mjs --record` stores the request shapes
// it sent in fixtures/clients/codex/ (secrets dropped, long texts shortened) for the replay tests
// in `npm test` (test/integration/codex-replay.test.ts).
// Run by `npm run test:clients` (scripts/test-clients.mjs); installs the pinned Codex on demand.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeOpenAI, TOOL_COMMAND } from './fake-openai.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');
const igwBin = path.join(root, 'bin', 'igw.js');
const codexBin = path.join(here, 'node_modules', '@openai', 'codex', 'bin', 'codex.js');
const record = process.argv.includes('--record');
const fixturesDir = path.join(root, 'fixtures', 'clients', 'codex');
const temps = [];

/** Secrets never reach a fixture; hop-by-hop and per-connection headers say nothing about Codex. */
const DROPPED_HEADERS = new Set(['authorization', 'x-api-key', 'cookie', 'host', 'content-length', 'connection']);
/** Strings longer than this (the system prompt, skill lists) are cut to their start in fixtures. */
const LONG_TEXT = 600;

async function main() {
  await ensureCodexInstalled();
  await ensureIgwBuilt();
  const failures = [];
  for (const scenario of [builtInPlainAnswer, chatUpstreamToolLoop, chatUpstreamToolLoopKnownModel, responsesUpstreamToolLoop]) {
    process.stderr.write(`-- ${scenario.name}\n`);
    try {
      await scenario();
      process.stderr.write(`   ok\n`);
    } catch (error) {
      failures.push(scenario.name);
      process.stderr.write(`   FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
  if (failures.length > 0) throw new Error(`codex: ${failures.length} scenario(s) failed: ${failures.join(', ')}`);
}

async function builtInPlainAnswer() {
  const igw = await startIgw();
  const proxy = await startRecordingProxy(igw.url);
  try {
    const prompt = 'Reply with exactly: igw answers Codex';
    const result = await runCodex({ baseUrl: `${proxy.url}/v1`, model: 'local-echo', key: igw.key, prompt });
    expect(result.code === 0, `codex exited ${result.code}`, result);
    // local-echo answers with the last user text: the prompt comes back as Codex's final message.
    expect(result.stdout.includes(prompt), 'the final message is the built-in model answer', result);
    const turns = proxy.records.filter((entry) => entry.path.endsWith('/responses'));
    expect(turns.length >= 1 && turns.every((entry) => entry.status === 200), `every /v1/responses call answered 200 (${turns.map((entry) => entry.status)})`, result);
    if (record) await saveFixture('exec-plain.request.json', turns[0]);
  } finally {
    await proxy.close();
    await igw.close();
  }
}

async function chatUpstreamToolLoop() {
  await chatToolLoop('fake-coder', 'exec-tool-loop');
}

/** A model Codex knows (gpt-5.5): Codex adds its free-form apply_patch (a custom tool) and tool_search. */
async function chatUpstreamToolLoopKnownModel() {
  await chatToolLoop('gpt-5.5', 'exec-gpt-5.5-tool-loop');
}

async function chatToolLoop(model, fixturePrefix) {
  const upstream = await startFakeOpenAI();
  const igw = await startIgw(upstreamConfig(upstream.url, false, model));
  const proxy = await startRecordingProxy(igw.url);
  try {
    const result = await runCodex({ baseUrl: `${proxy.url}/v1`, model, key: igw.key, prompt: 'Run the check command and report what it printed.' });
    expect(result.code === 0, `codex exited ${result.code}`, result);
    expect(result.stdout.includes('tool said:'), 'the final message is the model answer after the tool result', result);
    const chats = upstream.requests.filter((entry) => entry.path.endsWith('/chat/completions'));
    expect(chats.length === 2, `two model turns reached the upstream as chat completions (got ${chats.length})`, result);
    const toolMessage = chats[1].body.messages.find((message) => message.role === 'tool');
    expect(toolMessage !== undefined, 'the second turn carries the tool result', result);
    expect(JSON.stringify(toolMessage.content).includes('igw-tool-loop-ok'), `Codex ran "${TOOL_COMMAND}" and sent its output back`, result);
    const turns = proxy.records.filter((entry) => entry.path.endsWith('/responses'));
    expect(turns.length === 2 && turns.every((entry) => entry.status === 200), `two /v1/responses calls answered 200 (${turns.map((entry) => entry.status)})`, result);
    if (record) {
      await saveFixture(`${fixturePrefix}-1.request.json`, turns[0]);
      await saveFixture(`${fixturePrefix}-2.request.json`, turns[1]);
    }
  } finally {
    await proxy.close();
    await igw.close();
    await upstream.close();
  }
}

async function responsesUpstreamToolLoop() {
  const upstream = await startFakeOpenAI();
  const igw = await startIgw(upstreamConfig(upstream.url, true));
  try {
    const result = await runCodex({ baseUrl: `${igw.url}/v1`, model: 'fake-coder', key: igw.key, prompt: 'Run the check command and report what it printed.' });
    expect(result.code === 0, `codex exited ${result.code}`, result);
    expect(result.stdout.includes('tool said:'), 'the final message is the model answer after the tool result', result);
    const turns = upstream.requests.filter((entry) => entry.path.endsWith('/responses'));
    expect(turns.length === 2, `two model turns reached the upstream on the Responses wire (got ${turns.length})`, result);
    // Native pass-through: what igw does not act on reaches the provider untouched.
    expect(turns[0].body.client_metadata !== undefined && turns[0].body.tools.some((tool) => tool.type === 'namespace'), 'client_metadata and namespace tools forwarded as sent', result);
    const output = turns[1].body.input.find((item) => item.type === 'function_call_output');
    expect(output !== undefined && JSON.stringify(output.output).includes('igw-tool-loop-ok'), `Codex ran "${TOOL_COMMAND}" and sent its output back`, result);
  } finally {
    await igw.close();
    await upstream.close();
  }
}

/** An igw config with the fake upstream as provider "fake" serving `model` (default "fake-coder"). */
function upstreamConfig(baseUrl, responsesApi, model = 'fake-coder') {
  return {
    providers: { fake: { kind: 'openai', vendor: 'openai', base_url: baseUrl, api_key: 'sk-fake-upstream', responses_api: responsesApi, timeout_ms: 30000 } },
    models: {
      [model]: {
        type: 'chat',
        context_length: 200000,
        max_output_tokens: 8000,
        capabilities: { streaming: true, function_calling: true, structured_output: true, json_schema: true },
        routes: [{ provider: 'fake', upstream_model: 'fake-model', pricing: { input_cost_per_million_eur: 1, output_cost_per_million_eur: 2 } }],
      },
    },
  };
}

// ---- igw ----

async function startIgw(config) {
  const dataDir = await tempDir('igw-codex-data-');
  const env = { ...process.env, IGW_DATA_DIR: dataDir };
  if (config !== undefined) {
    env.IGW_CONFIG = path.join(dataDir, 'igw.config.json');
    await writeFile(env.IGW_CONFIG, JSON.stringify(config, null, 2));
  }
  const created = await runProcess(process.execPath, [igwBin, 'keys', 'create', '--name', 'codex'], { env, cwd: dataDir });
  if (created.code !== 0) throw new Error(`igw keys create failed: ${created.stderr}`);
  const key = created.stdout.trim();
  const child = spawn(process.execPath, [igwBin, 'serve', '--port', '0', '--no-tui'], { env, cwd: dataDir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (part) => (stderr += part));
  const url = await new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`igw serve did not start: ${stderr}`)), 30000);
    child.stdout.on('data', (part) => {
      stdout += part;
      const match = /igw listening on (http:\/\/\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`igw serve exited ${code}: ${stderr}`)));
  });
  return {
    url,
    key,
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.on('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/** A loopback proxy in front of igw that keeps each request Codex sends (and igw's status). */
async function startRecordingProxy(target) {
  const records = [];
  const targetUrl = new URL(target);
  const server = createServer((incoming, outgoing) => {
    const parts = [];
    incoming.on('data', (part) => parts.push(part));
    incoming.on('end', () => {
      const raw = Buffer.concat(parts);
      const entry = { method: incoming.method, path: incoming.url, headers: incoming.headers, body: raw.length > 0 ? JSON.parse(raw.toString('utf8')) : undefined, status: 0 };
      records.push(entry);
      const forward = httpRequest({ host: targetUrl.hostname, port: targetUrl.port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, host: targetUrl.host } }, (answer) => {
        entry.status = answer.statusCode;
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      });
      forward.on('error', (error) => {
        outgoing.writeHead(502);
        outgoing.end(String(error));
      });
      forward.end(raw);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, records, close: () => new Promise((resolve) => server.close(resolve)) };
}

// ---- Codex ----

async function runCodex({ baseUrl, model, key, prompt }) {
  const home = await tempDir('igw-codex-home-');
  const workdir = await tempDir('igw-codex-work-');
  // Codex's documented custom-provider setup: the key is read from the env var named by env_key.
  const config = [
    `model = "${model}"`,
    'model_provider = "igw"',
    '',
    '[model_providers.igw]',
    'name = "igw"',
    `base_url = "${baseUrl}"`,
    'env_key = "IGW_API_KEY"',
    'wire_api = "responses"',
    '',
  ].join('\n');
  await writeFile(path.join(home, 'config.toml'), config);
  const env = { PATH: process.env.PATH ?? '', HOME: home, CODEX_HOME: home, IGW_API_KEY: key, NO_COLOR: '1' };
  return runProcess(process.execPath, [codexBin, 'exec', '--skip-git-repo-check', prompt], { env, cwd: workdir, timeoutMs: 240000 });
}

async function ensureCodexInstalled() {
  const wanted = JSON.parse(await readFile(path.join(here, 'package.json'), 'utf8')).dependencies['@openai/codex'];
  const installed = existsSync(path.join(here, 'node_modules', '@openai', 'codex', 'package.json'))
    ? JSON.parse(await readFile(path.join(here, 'node_modules', '@openai', 'codex', 'package.json'), 'utf8')).version
    : undefined;
  if (installed === wanted) return;
  process.stderr.write(`installing @openai/codex ${wanted} (once, into ${path.relative(root, here)}/node_modules)\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = await runProcess(npm, ['install', '--no-package-lock', '--no-audit', '--no-fund'], { env: process.env, cwd: here, timeoutMs: 600000 });
  if (result.code !== 0) throw new Error(`npm install of @openai/codex failed: ${result.stderr}`);
}

async function ensureIgwBuilt() {
  if (existsSync(path.join(root, 'dist', 'index.js'))) return;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = await runProcess(npm, ['run', 'build'], { env: process.env, cwd: root, timeoutMs: 600000 });
  if (result.code !== 0) throw new Error(`npm run build failed: ${result.stderr}`);
}

// ---- fixtures ----

async function saveFixture(name, entry) {
  await mkdir(fixturesDir, { recursive: true });
  const headers = Object.fromEntries(Object.entries(entry.headers).filter(([header]) => !DROPPED_HEADERS.has(header)).sort(([a], [b]) => a.localeCompare(b)));
  const fixture = { method: entry.method, path: entry.path, headers, body: shortened(entry.body) };
  await writeFile(path.join(fixturesDir, name), `${JSON.stringify(fixture, null, 2)}\n`);
  process.stderr.write(`   recorded fixtures/clients/codex/${name}\n`);
}

function shortened(value) {
  if (typeof value === 'string') return value.length > LONG_TEXT ? `${value.slice(0, 200)}… [shortened: ${value.length} characters]` : value;
  if (Array.isArray(value)) return value.map(shortened);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shortened(inner)]));
  return value;
}

// ---- helpers ----

async function tempDir(prefix) {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

function runProcess(command, args, { env, cwd, timeoutMs = 60000 }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (part) => (stdout += part));
    child.stderr.on('data', (part) => (stderr += part));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? `signal ${signal}` : 1), stdout, stderr });
    });
  });
}

function expect(condition, what, result) {
  if (condition) return;
  const tail = (text) => text.split('\n').slice(-25).join('\n');
  throw new Error(`${what}\n--- codex stdout ---\n${tail(result.stdout)}\n--- codex stderr ---\n${tail(result.stderr)}`);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
