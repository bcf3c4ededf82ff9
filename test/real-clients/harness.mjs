// Shared by the real-client runs (test/real-clients/*/run.mjs): a real `igw serve` on a temp data
// dir, a recording proxy in front of it, child processes with a time limit, on-demand installs of
// a folder's pinned client, and request fixtures with secrets dropped and long texts shortened.
// Plain ESM JavaScript: these scripts run with node alone, before or without a TypeScript build.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const igwBin = path.join(repoRoot, 'bin', 'igw.js');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Secrets never reach a fixture; per-connection headers say nothing about the client. */
const DROPPED_HEADERS = new Set(['authorization', 'x-api-key', 'cookie', 'host', 'content-length', 'connection']);
/** Strings longer than this (system prompts, tool manuals) are cut to their start in fixtures. */
const LONG_TEXT = 600;

const temps = [];

/** A temp folder removed by `cleanup()`. */
export async function tempDir(prefix) {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

export async function cleanup() {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Runs a command to its end (killed after timeoutMs); never rejects. */
export function runProcess(command, args, { env, cwd, timeoutMs = 60_000 }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (part) => (stdout += part));
    child.stderr.on('data', (part) => (stderr += part));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? `signal ${signal}`, stdout, stderr });
    });
  });
}

/** `npm install` in the client's folder when its pinned version is not there yet. */
export async function ensureInstalled(folder, packageName) {
  const wanted = JSON.parse(await readFile(path.join(folder, 'package.json'), 'utf8')).dependencies[packageName];
  const manifest = path.join(folder, 'node_modules', ...packageName.split('/'), 'package.json');
  const installed = existsSync(manifest) ? JSON.parse(await readFile(manifest, 'utf8')).version : undefined;
  if (installed === wanted) return;
  process.stderr.write(`installing ${packageName} ${wanted} (once, into ${path.relative(repoRoot, folder)}/node_modules)\n`);
  const result = await runProcess(npm, ['install', '--no-package-lock', '--no-audit', '--no-fund'], { env: process.env, cwd: folder, timeoutMs: 600_000 });
  if (result.code !== 0) throw new Error(`npm install of ${packageName} failed: ${result.stderr}`);
}

/** bin/igw.js runs dist/: build once when it is missing. */
export async function ensureIgwBuilt() {
  if (existsSync(path.join(repoRoot, 'dist', 'cli', 'main.js'))) return;
  const result = await runProcess(npm, ['run', 'build'], { env: process.env, cwd: repoRoot, timeoutMs: 600_000 });
  if (result.code !== 0) throw new Error(`npm run build failed: ${result.stderr}`);
}

/**
 * `igw serve --port 0` on a fresh data dir (built-in models, or `config` written as
 * igw.config.json), with one key made by `igw keys create` beforehand.
 */
export async function startIgw(config) {
  const dataDir = await tempDir('igw-client-data-');
  const env = { ...process.env, IGW_DATA_DIR: dataDir };
  delete env.IGW_CONFIG;
  if (config !== undefined) {
    env.IGW_CONFIG = path.join(dataDir, 'igw.config.json');
    await writeFile(env.IGW_CONFIG, JSON.stringify(config, null, 2));
  }
  const created = await runProcess(process.execPath, [igwBin, 'keys', 'create', '--name', 'real-client'], { env, cwd: dataDir });
  if (created.code !== 0) throw new Error(`igw keys create failed: ${created.stderr}`);
  const key = created.stdout.trim();
  const child = spawn(process.execPath, [igwBin, 'serve', '--port', '0', '--no-tui'], { env, cwd: dataDir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (part) => (stderr += part));
  const url = await new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`igw serve did not start: ${stderr}`)), 30_000);
    child.stdout.on('data', (part) => {
      stdout += part;
      const match = /igw listening on (http:\/\/\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`igw serve exited ${code}: ${stderr}`)));
  });
  return {
    url,
    key,
    dataDir,
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/** A loopback proxy in front of `target` that keeps every request (body parsed) and the status it got. */
export async function startRecordingProxy(target) {
  const records = [];
  const targetUrl = new URL(target);
  const server = createServer((incoming, outgoing) => {
    const parts = [];
    incoming.on('data', (part) => parts.push(part));
    incoming.on('end', () => {
      const raw = Buffer.concat(parts);
      let body;
      try {
        body = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : undefined;
      } catch {
        body = raw.toString('utf8');
      }
      const entry = { method: incoming.method, path: incoming.url, headers: incoming.headers, body, status: 0, responseHeaders: {} };
      records.push(entry);
      const forward = httpRequest({ host: targetUrl.hostname, port: targetUrl.port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, host: targetUrl.host } }, (answer) => {
        entry.status = answer.statusCode;
        entry.responseHeaders = answer.headers;
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

/**
 * A scripted upstream on loopback: `routes` maps a path ending (`/messages`, `/chat/completions`,
 * `/responses`) to a reply function `(body, response)`; other paths get `notFound` with a 404.
 * Every request is kept (path, headers, parsed body).
 */
export async function startScriptedUpstream(routes, notFound) {
  const requests = [];
  const server = createServer((request, response) => {
    const parts = [];
    request.on('data', (part) => parts.push(part));
    request.on('end', () => {
      const body = parts.length > 0 ? JSON.parse(Buffer.concat(parts).toString('utf8')) : undefined;
      requests.push({ path: request.url, headers: request.headers, body });
      const route = Object.keys(routes).find((ending) => request.url.endsWith(ending));
      if (route !== undefined) return routes[route](body, response);
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify(notFound(request.url)));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, requests, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** A recorded request as a fixture: method, path with query, headers without secrets, body with long texts cut. */
export async function saveFixture(folder, name, entry) {
  await mkdir(folder, { recursive: true });
  const headers = Object.fromEntries(Object.entries(entry.headers).filter(([header]) => !DROPPED_HEADERS.has(header)).sort(([a], [b]) => a.localeCompare(b)));
  const fixture = { method: entry.method, path: entry.path, headers, body: shortened(entry.body) };
  await writeFile(path.join(folder, name), `${JSON.stringify(fixture, null, 2)}\n`);
  process.stderr.write(`   recorded ${path.relative(repoRoot, path.join(folder, name))}\n`);
}

function shortened(value) {
  if (typeof value === 'string') return value.length > LONG_TEXT ? `${value.slice(0, 200)}… [shortened: ${value.length} characters]` : value;
  if (Array.isArray(value)) return value.map(shortened);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shortened(inner)]));
  return value;
}

/** Runs the scenarios in order, reports each, cleans up, and exits non-zero when any failed. */
export async function runScenarios(client, scenarios) {
  const failures = [];
  for (const scenario of scenarios) {
    process.stderr.write(`-- ${scenario.name}\n`);
    try {
      await scenario();
      process.stderr.write('   ok\n');
    } catch (error) {
      failures.push(scenario.name);
      process.stderr.write(`   FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
  await cleanup();
  if (failures.length > 0) {
    process.stderr.write(`${client}: ${failures.length} scenario(s) failed: ${failures.join(', ')}\n`);
    process.exit(1);
  }
}

/** Throws with the client's output tail when `condition` is false. */
export function expect(condition, what, result) {
  if (condition) return;
  const tail = (text) => String(text ?? '').split('\n').slice(-25).join('\n');
  throw new Error(`${what}\n--- stdout ---\n${tail(result?.stdout)}\n--- stderr ---\n${tail(result?.stderr)}`);
}
