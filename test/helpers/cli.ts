/**
 * Shared helpers for the CLI tests: run `bin/igw.js` as a real child process (execa 9) on a
 * throw-away data dir, with a cwd that holds no igw.config.json and an environment without any
 * IGW_* variable unless the test adds one.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { MATRIX_STORE, matrixStore } from './store-matrix.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = path.join(REPO_ROOT, 'bin', 'igw.js');

function assertBuilt(): void {
  if (!existsSync(path.join(REPO_ROOT, 'dist', 'cli', 'main.js'))) {
    throw new Error('dist/cli/main.js is missing: run `npm run build` before the CLI tests');
  }
}

export interface Sandbox {
  /** The mkdtemp folder; everything below is removed by cleanup(). */
  root: string;
  /** IGW_DATA_DIR (not created: the CLI creates it, so its mode is the CLI's doing). */
  dataDir: string;
  /** cwd for every command (empty: no ./igw.config.json). */
  cwd: string;
  /** HOME of every command (empty: no ~/.config/igw/config.json). */
  home: string;
  /**
   * The base environment (no IGW_* except IGW_DATA_DIR). HOME is a folder of the sandbox and no
   * XDG_* variable is passed, so a real user config (~/.config/igw/config.json) is never read.
   */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

const sandboxes = new Set<Sandbox>();

export async function makeSandbox(): Promise<Sandbox> {
  assertBuilt();
  const root = await mkdtemp(path.join(tmpdir(), 'igw-cli-'));
  const cwd = path.join(root, 'work');
  await mkdir(cwd);
  const dataDir = path.join(root, 'data');
  const home = path.join(root, 'home');
  await mkdir(home);
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'TMPDIR', 'LANG', 'SYSTEMROOT']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  env['HOME'] = home;
  env['IGW_DATA_DIR'] = dataDir;
  env['NO_COLOR'] = '1';
  // Test matrix, postgres project: the user config (~/.config/igw/config.json, found when a test
  // names no config of its own) puts the store on a new database; team mode wants IGW_DATA_KEY.
  const store = await matrixStore({});
  if (MATRIX_STORE === 'postgres') {
    await mkdir(path.join(home, '.config', 'igw'), { recursive: true });
    await writeFile(path.join(home, '.config', 'igw', 'config.json'), JSON.stringify(store.rawConfig));
    env['IGW_DATA_KEY'] = process.env['IGW_DATA_KEY']!;
  }
  const sandbox: Sandbox = {
    root,
    dataDir,
    cwd,
    home,
    env,
    async cleanup() {
      sandboxes.delete(sandbox);
      await store.release();
      await rm(root, { recursive: true, force: true });
    },
  };
  sandboxes.add(sandbox);
  return sandbox;
}

export interface RunOptions {
  /** Added to (or, with undefined, removed from) the sandbox environment. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  timeoutMs?: number;
}

export interface ServeOptions extends RunOptions {
  /**
   * After the listening line, make one round trip through the server's event loop (admin socket)
   * before returning, so its signal handlers are surely installed (default true). false returns
   * the moment the line arrives, as a script waiting for it would.
   */
  settle?: boolean;
}

/** One request/reply on the admin socket of a running server (an unknown op: no side effects). */
export async function adminRoundTrip(dataDir: string, timeoutMs = 5_000): Promise<unknown> {
  const socketPath = path.join(dataDir, 'igw.sock');
  if (Buffer.byteLength(socketPath) >= 100) throw new Error(`data dir path too long for the test helper: ${dataDir}`);
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let buffer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no reply on the admin socket'));
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.once('connect', () => socket.write(`${JSON.stringify({ op: 'test.ping', args: {} })}\n`));
    socket.on('data', (text: string) => {
      buffer += text;
      const newline = buffer.indexOf('\n');
      if (newline === -1) return;
      clearTimeout(timer);
      socket.end();
      resolve(JSON.parse(buffer.slice(0, newline)));
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

export interface RunResult {
  stdout: string;
  stderr: string;
  exitCode: number | undefined;
  signal: string | undefined;
}

function environment(sandbox: Sandbox, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env = { ...sandbox.env };
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Runs `igw ARGS…` to completion; never rejects on a non-zero exit. */
export async function igw(sandbox: Sandbox, args: string[], options: RunOptions = {}): Promise<RunResult> {
  const result = await execa(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? sandbox.cwd,
    env: environment(sandbox, options.env),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: options.timeoutMs ?? 15_000,
  });
  return {
    stdout: String(result.stdout ?? ''),
    stderr: String(result.stderr ?? ''),
    exitCode: result.exitCode,
    signal: result.signal,
  };
}

/** `igw ARGS… --json` that must succeed: returns the parsed stdout. */
export async function igwJson<T = unknown>(sandbox: Sandbox, args: string[], options: RunOptions = {}): Promise<T> {
  const result = await igw(sandbox, args, options);
  if (result.exitCode !== 0) throw new Error(`igw ${args.join(' ')} exited ${String(result.exitCode)}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

export interface RunningServer {
  url: string;
  port: number;
  pid: number;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** Sends the signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ exitCode: number | undefined; signal: string | undefined }>;
  /** Resolves when the process has exited, however. */
  exited: Promise<{ exitCode: number | undefined; signal: string | undefined }>;
}

const servers = new Set<{ subprocess: ResultPromise; done: boolean }>();

const LISTENING = /^igw listening on (http:\/\/127\.0\.0\.1:(\d+))$/;

/** Starts `igw serve --port 0 ARGS…` with stdout piped and waits for the listening line. */
export async function startServer(sandbox: Sandbox, args: string[] = [], options: ServeOptions = {}): Promise<RunningServer> {
  const subprocess = execa(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    cwd: options.cwd ?? sandbox.cwd,
    env: environment(sandbox, options.env),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    buffer: false,
  });
  const entry = { subprocess, done: false };
  servers.add(entry);
  let stdout = '';
  let stderr = '';
  subprocess.stdout!.setEncoding('utf8');
  subprocess.stderr!.setEncoding('utf8');
  subprocess.stderr!.on('data', (chunk: string) => (stderr += chunk));
  const exited = subprocess.then((result) => {
    entry.done = true;
    servers.delete(entry);
    return { exitCode: result.exitCode, signal: result.signal };
  });

  const listening = await new Promise<{ url: string; port: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`igw serve printed no listening line within ${options.timeoutMs ?? 15_000} ms; stdout=${stdout} stderr=${stderr}`)), options.timeoutMs ?? 15_000);
    subprocess.stdout!.on('data', (chunk: string) => {
      stdout += chunk;
      const firstLine = stdout.split('\n')[0] ?? '';
      if (!stdout.includes('\n')) return;
      const match = LISTENING.exec(firstLine);
      clearTimeout(timer);
      if (match === null) reject(new Error(`unexpected first stdout line from igw serve: ${JSON.stringify(firstLine)}`));
      else resolve({ url: match[1]!, port: Number(match[2]) });
    });
    void exited.then((result) => {
      clearTimeout(timer);
      reject(new Error(`igw serve exited (code ${String(result.exitCode)}, signal ${String(result.signal)}) before listening; stdout=${stdout} stderr=${stderr}`));
    });
  });

  if (options.settle !== false) await adminRoundTrip(sandbox.dataDir);

  return {
    ...listening,
    pid: subprocess.pid!,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (!entry.done) subprocess.kill(signal);
      return exited;
    },
  };
}

/** For afterEach: SIGKILL every server a test left running and remove every sandbox. */
export async function cleanupAll(): Promise<void> {
  const pending = [...servers];
  for (const entry of pending) if (!entry.done) entry.subprocess.kill('SIGKILL');
  await Promise.all(pending.map((entry) => entry.subprocess.catch(() => undefined)));
  await Promise.all([...sandboxes].map((sandbox) => sandbox.cleanup()));
}

export const CHAT_BODY = { model: 'local-echo', messages: [{ role: 'user', content: 'hi' }] };

export async function chat(url: string, key: string, body: unknown = CHAT_BODY): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text) };
}

export async function listModels(url: string, key: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text) };
}
