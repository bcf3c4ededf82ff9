/**
 * `igw serve` on a real terminal: util-linux `script` gives the process a pseudo-terminal, so
 * the ink dashboard runs exactly as a user sees it. Skipped (with a notice) where `script` is
 * missing.
 */
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, chat, cleanupAll, igwJson, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { scriptAvailable } from '../helpers/pty.js';

const available = scriptAvailable('serve-dashboard');

const ANSI = /\u001B\[[0-9;?]*[A-Za-z]/g;

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(cleanupAll);

function onTerminal(args: string[]) {
  const command = `stty cols 140 rows 60; exec ${process.execPath} ${BIN} serve --port 0 ${args.join(' ')}`;
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
  return { child, screen, waitFor };
}

describe.skipIf(!available)('igw serve on a terminal', () => {
  it('shows the live dashboard, counts requests, and q stops it gracefully with exit 0', async () => {
    const key = await igwJson<{ key: string }>(sandbox, ['keys', 'create', '--json']);
    const terminal = onTerminal([]);
    const url = (await terminal.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    await terminal.waitFor(/Today \(\d{4}-\d{2}-\d{2} UTC\)/);
    expect((await chat(url, key.key)).status).toBe(200);
    expect((await chat(url, key.key, { model: 'nope', messages: [{ role: 'user', content: 'x' }] })).status).toBeGreaterThanOrEqual(400);
    await terminal.waitFor(/since start 2 requests/);
    await terminal.waitFor(/local-echo\s+1 req/);
    await terminal.waitFor(/INFERENCE_3001\s+1/);
    terminal.child.stdin!.write('q');
    const result = await terminal.child;
    expect(result.exitCode).toBe(0);
    expect(terminal.screen()).toContain('stopping');
    // Nothing on the terminal is a raw JSON log line: the dashboard kept them.
    expect(terminal.screen()).not.toMatch(/^\{"time"/m);
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
