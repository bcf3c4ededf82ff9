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
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureIgwBuilt, ensureInstalled, expect, repoRoot, runProcess, runScenarios, saveFixture as saveFixtureIn, startIgw, startRecordingProxy, tempDir } from '../harness.mjs';
import { startFakeOpenAI, TOOL_COMMAND } from './fake-openai.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const codexBin = path.join(here, 'node_modules', '@openai', 'codex', 'bin', 'codex.js');
const record = process.argv.includes('--record');
const fixturesDir = path.join(repoRoot, 'fixtures', 'clients', 'codex');

async function main() {
  await ensureInstalled(here, '@openai/codex');
  await ensureIgwBuilt();
  await runScenarios('codex', [builtInPlainAnswer, chatUpstreamToolLoop, chatUpstreamToolLoopKnownModel, responsesUpstreamToolLoop]);
}

/** Fixtures of this client go to fixtures/clients/codex/. */
const saveFixture = (name, entry) => saveFixtureIn(fixturesDir, name, entry);

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

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
