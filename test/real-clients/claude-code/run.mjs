// Claude Code (`claude -p`) against a real `igw serve`, set up as its docs say for a gateway:
// ANTHROPIC_BASE_URL = igw, ANTHROPIC_API_KEY = an igw key, non-essential traffic and telemetry
// off (nothing leaves the machine). Three runs:
//   1. the built-in models (default message tiers → local-echo): a plain answer;
//   2. an Anthropic-kind fake upstream on loopback (native pass-through): a plain answer, then a
//      tool loop (the fake calls Bash, Claude Code runs it, the fake answers with its output);
//   3. an OpenAI-kind fake upstream (translated through the chat hub): the same tool loop.
// Claude Code talks to igw through a recording proxy; `node run.mjs --record` stores the request
// shapes it sent in fixtures/clients/claude-code/ (secrets dropped, long texts shortened) for the
// replay tests in `npm test` (test/integration/claude-code-replay.test.ts).
// Run by `npm run test:clients` (scripts/test-clients.mjs); installs the pinned version on demand.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureIgwBuilt, ensureInstalled, expect, repoRoot, runProcess, runScenarios, saveFixture, startIgw, startRecordingProxy, tempDir } from '../harness.mjs';
import { startFakeUpstream, TOOL_COMMAND, TOOL_PROMPT } from './fake-upstream.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
// The package's own launcher of its native binary (works whether or not npm ran its postinstall).
const claudeLauncher = path.join(here, 'node_modules', '@anthropic-ai', 'claude-code', 'cli-wrapper.cjs');
const record = process.argv.includes('--record');
const fixturesDir = path.join(repoRoot, 'fixtures', 'clients', 'claude-code');
const PLAIN_PROMPT = 'Reply with exactly: igw answers Claude Code';

async function builtInPlainAnswer() {
  const igw = await startIgw();
  const proxy = await startRecordingProxy(igw.url);
  try {
    const result = await runClaude({ baseUrl: proxy.url, key: igw.key, prompt: PLAIN_PROMPT });
    expect(result.code === 0, `claude exited ${result.code}`, result);
    // local-echo answers with the last user text: the prompt comes back as the final message.
    expect(result.stdout.includes(PLAIN_PROMPT), 'the answer is the built-in model echoing the prompt', result);
    const probe = proxy.records.find((entry) => entry.method === 'HEAD' && entry.path === '/');
    expect(probe === undefined || probe.status === 200, `HEAD / answered ${probe?.status}`, result);
    const calls = messageCalls(proxy);
    expect(calls.length >= 1 && calls.every((entry) => entry.status === 200), `every /v1/messages call answered 200 (${calls.map((entry) => entry.status)})`, result);
    if (record) {
      if (probe !== undefined) await saveFixture(fixturesDir, 'head-root.request.json', probe);
      await saveFixture(fixturesDir, 'messages-plain.request.json', calls[0]);
    }
  } finally {
    await proxy.close();
    await igw.close();
  }
}

async function anthropicUpstream() {
  const upstream = await startFakeUpstream();
  const igw = await startIgw(upstreamConfig('anthropic', upstream.url));
  const proxy = await startRecordingProxy(igw.url);
  try {
    const plain = await runClaude({ baseUrl: proxy.url, key: igw.key, prompt: PLAIN_PROMPT });
    expect(plain.code === 0, `claude exited ${plain.code}`, plain);
    expect(plain.stdout.includes('fake upstream heard: igw answers Claude Code') || plain.stdout.includes(`fake upstream heard: ${PLAIN_PROMPT}`), 'the answer is the upstream model\'s', plain);
    const first = upstream.requests.find((entry) => entry.path.endsWith('/messages'));
    // Native pass-through: the client's beta flags and the fields igw does not act on arrive as sent.
    expect(first !== undefined && String(first.headers['anthropic-beta']).includes('claude-code-20250219'), 'the anthropic-beta header reached the upstream', plain);

    proxy.records.length = 0;
    upstream.requests.length = 0;
    const loop = await runToolLoop(proxy, igw);
    const turns = upstream.requests.filter((entry) => entry.path.endsWith('/messages'));
    expect(turns.length === 2, `two model turns reached the upstream (got ${turns.length})`, loop);
    const result = turns[1].body.messages.flatMap((message) => (Array.isArray(message.content) ? message.content : [])).find((block) => block.type === 'tool_result');
    expect(result !== undefined && JSON.stringify(result.content).includes('igw-tool-loop-ok'), `Claude Code ran "${TOOL_COMMAND}" and sent its output back`, loop);
  } finally {
    await proxy.close();
    await igw.close();
    await upstream.close();
  }
}

async function openaiUpstream() {
  const upstream = await startFakeUpstream();
  const igw = await startIgw(upstreamConfig('openai', upstream.url));
  const proxy = await startRecordingProxy(igw.url);
  try {
    const loop = await runToolLoop(proxy, igw);
    const turns = upstream.requests.filter((entry) => entry.path.endsWith('/chat/completions'));
    expect(turns.length === 2, `two model turns reached the upstream as chat completions (got ${turns.length})`, loop);
    const toolMessage = turns[1].body.messages.find((message) => message.role === 'tool');
    expect(toolMessage !== undefined && JSON.stringify(toolMessage.content).includes('igw-tool-loop-ok'), `Claude Code ran "${TOOL_COMMAND}" and sent its output back`, loop);
    const ignored = proxy.records.map((entry) => entry.responseHeaders['igw-ignored-params']).find((value) => value !== undefined);
    process.stderr.write(`   igw-ignored-params: ${ignored ?? '(none)'}\n`);
    if (record) {
      const calls = messageCalls(proxy);
      await saveFixture(fixturesDir, 'messages-tool-loop-1.request.json', calls[0]);
      await saveFixture(fixturesDir, 'messages-tool-loop-2.request.json', calls.at(-1));
    }
  } finally {
    await proxy.close();
    await igw.close();
    await upstream.close();
  }
}

/** Claude Code runs the check command through Bash (allowed for that one command) and reports it. */
async function runToolLoop(proxy, igw) {
  const result = await runClaude({ baseUrl: proxy.url, key: igw.key, prompt: TOOL_PROMPT, allowedTools: `Bash(${TOOL_COMMAND})` });
  expect(result.code === 0, `claude exited ${result.code}`, result);
  expect(result.stdout.includes('tool said: igw-tool-loop-ok'), 'the final answer is the model\'s, after the tool result', result);
  const calls = messageCalls(proxy);
  expect(calls.length >= 2 && calls.every((entry) => entry.status === 200), `every /v1/messages call answered 200 (${calls.map((entry) => entry.status)})`, result);
  return result;
}

function messageCalls(proxy) {
  return proxy.records.filter((entry) => entry.method === 'POST' && entry.path.split('?')[0] === '/v1/messages');
}

/** An igw config with the fake as provider "fake" of `kind`, serving model "fake-claude" for every message tier. */
function upstreamConfig(kind, baseUrl) {
  return {
    providers: { fake: { kind, base_url: baseUrl, api_key: 'sk-fake-upstream', timeout_ms: 30000 } },
    models: {
      'fake-claude': {
        type: 'chat',
        context_length: 1_000_000,
        max_output_tokens: 64000,
        capabilities: { streaming: true, function_calling: true, vision: true },
        routes: [{ provider: 'fake', upstream_model: 'fake-model', pricing: { input_cost_per_million_eur: 1, output_cost_per_million_eur: 2 } }],
      },
    },
    message_tiers: { opus: 'fake-claude', sonnet: 'fake-claude', haiku: 'fake-claude' },
  };
}

async function runClaude({ baseUrl, key, prompt, allowedTools }) {
  const home = await tempDir('igw-claude-home-');
  const workdir = await tempDir('igw-claude-work-');
  // Claude Code's documented gateway setup, plus what keeps it on this machine.
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: key,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    NO_COLOR: '1',
  };
  const args = [claudeLauncher, '-p', prompt, ...(allowedTools === undefined ? [] : ['--allowedTools', allowedTools])];
  return runProcess(process.execPath, args, { env, cwd: workdir, timeoutMs: 240_000 });
}

await ensureInstalled(here, '@anthropic-ai/claude-code');
await ensureIgwBuilt();
await runScenarios('claude-code', [builtInPlainAnswer, anthropicUpstream, openaiUpstream]);
