/**
 * Commands on a real terminal (util-linux `script` gives them a pseudo-terminal): colour only
 * without NO_COLOR, charts only on a terminal. Skipped with a notice where `script` is missing.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanupAll, igw, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { scriptAvailable } from '../helpers/pty.js';

const available = scriptAvailable('terminal-output');

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
  // Two days of request log, written as the server writes it.
  await mkdir(path.join(sandbox.dataDir, 'logs'), { recursive: true });
  const now = Date.now();
  for (const [offset, count] of [[0, 3], [1, 1]] as const) {
    const time = new Date(now - offset * 86_400_000);
    const lines = Array.from({ length: count }, () =>
      JSON.stringify({ time: time.toISOString(), request_id: 'r', key_id: 'key_a', account: 'default', endpoint: '/v1/chat/completions', model: 'local-echo', provider: 'local', route: 'local/echo', status: 200, error_code: null, latency_ms: 5, input_tokens: 3, output_tokens: 2, eur: '0', energy: '0', paid_with: null, energy_kwh: 0, carbon_g_co2: 0, stream: false }),
    );
    await writeFile(path.join(sandbox.dataDir, 'logs', `requests-${time.toISOString().slice(0, 10)}.jsonl`), `${lines.join('\n')}\n`);
  }
});
afterEach(cleanupAll);

async function onTerminal(args: string[], env: Record<string, string | undefined>): Promise<string> {
  const environment: Record<string, string> = { ...sandbox.env, TERM: 'xterm-256color' };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete environment[name];
    else environment[name] = value;
  }
  const result = await execa('script', ['-qefc', `stty cols 200 rows 50; exec ${process.execPath} ${BIN} ${args.join(' ')}`, '/dev/null'], { cwd: sandbox.cwd, env: environment, extendEnv: false, reject: false, stdin: 'ignore', timeout: 15_000 });
  expect(result.exitCode).toBe(0);
  return String(result.stdout);
}

describe.skipIf(!available)('on a terminal', () => {
  it('igw usage draws a per-day sparkline and bold headers; NO_COLOR removes every escape code', async () => {
    const styled = await onTerminal(['usage', '--since', '3d'], { NO_COLOR: undefined });
    expect(styled).toContain('\u001B[1m');
    expect(styled).toMatch(/PER DAY \(4d\)/);
    expect(styled).toMatch(/local-echo .*[▁-█]{2}/);
    const plain = await onTerminal(['usage', '--since', '3d'], { NO_COLOR: '1' });
    expect(plain).not.toContain('\u001B[');
    expect(plain).toMatch(/PER DAY \(4d\)/);
  });

  it('igw usage piped: no chart, no escape codes', async () => {
    const result = await igw(sandbox, ['usage'], { env: { NO_COLOR: undefined } });
    expect(result.stdout).not.toContain('PER DAY');
    expect(result.stdout).not.toContain('\u001B[');
  });
});
