/**
 * `igw serve` on a real terminal: util-linux `script` gives the process a pseudo-terminal, so
 * the ink dashboard runs exactly as a user sees it. Skipped (with a notice) where `script` is
 * missing.
 */
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BIN, chat, cleanupAll, igwJson, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { scriptAvailable } from '../helpers/pty.js';
import { freeLoopbackPort } from '../helpers/free-port.js';

const available = scriptAvailable('serve-dashboard');

const ANSI = /\u001B\[[0-9;?]*[A-Za-z]/g;

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(cleanupAll);

function onTerminal(args: string[], size = { cols: 140, rows: 60 }) {
  const command = `stty cols ${size.cols} rows ${size.rows}; exec ${process.execPath} ${BIN} serve --port 0 ${args.join(' ')}`;
  const child = execa('script', ['-qefc', command, '/dev/null'], { cwd: sandbox.cwd, env: { ...sandbox.env, TERM: 'xterm-256color' }, extendEnv: false, reject: false, stdin: 'pipe', buffer: false, timeout: 30_000 });
  let output = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => (output += chunk));
  const screen = () => output.replace(ANSI, '');
  const waitFor = async (pattern: RegExp, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(screen())) {
      if (Date.now() > deadline) throw new Error(`terminal never showed ${pattern}: ${screen().slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return pattern.exec(screen())!;
  };
  return { child, screen, waitFor, raw: () => output };
}

describe.skipIf(!available)('igw serve on a terminal', () => {
  it('shows the live dashboard, counts requests, and q stops it gracefully with exit 0', async () => {
    const key = await igwJson<{ key: string }>(sandbox, ['keys', 'create', '--json']);
    const terminal = onTerminal([]);
    const url = (await terminal.waitFor(/igw (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    await terminal.waitFor(/today\s+\d+ requests/);
    expect((await chat(url, key.key)).status).toBe(200);
    expect((await chat(url, key.key, { model: 'nope', messages: [{ role: 'user', content: 'x' }] })).status).toBeGreaterThanOrEqual(400);
    await terminal.waitFor(/2 since start/);
    await terminal.waitFor(/models\s+local-echo 1/);
    await terminal.waitFor(/INFERENCE_3001 1/);
    terminal.child.stdin!.write('q');
    const result = await terminal.child;
    expect(result.exitCode).toBe(0);
    expect(terminal.screen()).toContain('stopping');
    // Nothing on the terminal is a raw JSON log line: the dashboard kept them.
    expect(terminal.screen()).not.toMatch(/^\{"time"/m);
  });

  it('at 80×24: one line per request with the key name, upstream failures with their code, and the frame fits', async () => {
    const port = await freeLoopbackPort();
    await writeFile(
      path.join(sandbox.cwd, 'igw.config.json'),
      JSON.stringify({ providers: { down: { kind: 'openai', base_url: `http://127.0.0.1:${port}/v1` } }, models: { broken: { type: 'chat', routes: [{ provider: 'down', upstream_model: 'x' }] } } }),
    );
    const key = await igwJson<{ key: string }>(sandbox, ['keys', 'create', '--name', 'laptop', '--json']);
    const terminal = onTerminal([], { cols: 80, rows: 24 });
    const url = (await terminal.waitFor(/igw (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    for (let i = 0; i < 30; i += 1) expect((await chat(url, key.key)).status).toBe(200);
    expect((await chat(url, key.key, { model: 'broken', messages: [{ role: 'user', content: 'x' }] })).status).toBe(502);
    await terminal.waitFor(/\d\d:\d\d:\d\d laptop\s+local-echo\s+200\s+[\d.]+ ms\s+€0/);
    await terminal.waitFor(/\d\d:\d\d:\d\d laptop\s+broken\s+502\s+[\d.]+ m?s\s+INFERENCE_3105/);
    await terminal.waitFor(/keys\s+laptop 31/);
    terminal.child.stdin!.write('q');
    expect((await terminal.child).exitCode).toBe(0);
    // ink clears the whole terminal on every frame taller than it (the header then scrolls away):
    // a dashboard that fits never does.
    expect(terminal.raw()).not.toContain('\u001B[2J');
  });

  it('--no-tui on a terminal keeps the plain listening line and JSON logs', async () => {
    const terminal = onTerminal(['--no-tui']);
    await terminal.waitFor(/^igw listening on http:\/\/127\.0\.0\.1:\d+\r?$/m);
    await terminal.waitFor(/"msg":"gateway started"/);
    expect(terminal.screen()).not.toContain('Traffic');
    terminal.child.kill('SIGTERM');
    await terminal.child;
  });
});
