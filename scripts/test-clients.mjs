// `npm run test:clients`: runs the real command-line clients (Claude Code, Codex) against igw.
// They are large native packages, so each lives in its own folder under test/real-clients/ with
// its own package.json, installed on demand by that folder's run.mjs; `npm test` covers the
// request shapes they send through replay tests over fixtures/clients/ instead.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const clientsRoot = path.join(root, 'test', 'real-clients');
const only = process.argv.slice(2);

const entries = await readdir(clientsRoot, { withFileTypes: true }).catch(() => []);
const folders = entries.filter((entry) => entry.isDirectory() && (only.length === 0 || only.includes(entry.name))).map((entry) => entry.name).sort();
if (folders.length === 0) {
  console.error(`no client folders under ${clientsRoot}${only.length > 0 ? ` named ${only.join(', ')}` : ''}`);
  process.exit(1);
}

let failed = 0;
for (const folder of folders) {
  const script = path.join(clientsRoot, folder, 'run.mjs');
  console.error(`\n== ${folder} ==`);
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, [script], { stdio: 'inherit', cwd: path.join(clientsRoot, folder) });
    child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
  });
  if (code !== 0) failed += 1;
  console.error(`== ${folder}: ${code === 0 ? 'passed' : `failed (exit ${code})`} ==`);
}
console.log(`${folders.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
