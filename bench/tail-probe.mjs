// Where the gateway bench's p99 at many connections comes from (issue 18 item 3). Opens N fresh
// keep-alive connections at once (one undici Client each, as a load generator's pool does at the
// start of a cell), runs the scenario for 2 s per round, and prints p50/p99 with and without each
// connection's first request, and the slowest requests as c<connection>#<request>@<start ms>:<ms>/<first byte ms>.
// Usage: node bench/tail-probe.mjs <chat|stream|embeddings> [connections=128]
//   PROBE_PASSTHROUGH=1 measures the bare pass-through instead; PROBE_ROUNDS (3); PROBE_PROF=DIR profiles igw.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Client } from 'undici';
import { firstLine } from './process.mjs';
import { prepareGateway, root, SCENARIOS, startFakeUpstream } from './gateway-setup.mjs';
const { upstream, upstreamOrigin } = await startFakeUpstream();
const { env, key } = await prepareGateway(upstreamOrigin, 'igw-probe-');
const igw = spawn(process.execPath, [...(process.env.PROBE_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.PROBE_PROF] : []), path.join(root, 'bin/igw.js'), 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
const igwOrigin = (await firstLine(igw)).replace('igw listening on ', '');
let origin = igwOrigin;
if (process.env.PROBE_PASSTHROUGH) {
  const pt = spawn(process.execPath, [path.join(root, 'bench/passthrough.mjs'), upstreamOrigin], { stdio: ['ignore', 'pipe', 'inherit'] });
  origin = await firstLine(pt);
  process.on('exit', () => pt.kill());
}
const scenario = SCENARIOS[process.argv[2] ?? 'stream'];
const conns = Number(process.argv[3] ?? 128);
for (let round = 0; round < Number(process.env.PROBE_ROUNDS ?? 3); round++) {
  const samples = [];
  const t0 = performance.now();
  await Promise.all(Array.from({ length: conns }, async (_, c) => {
    const client = new Client(origin);
    for (let i = 0; performance.now() - t0 < 2000; i++) {
      const begin = performance.now();
      const r = await client.request({ method: 'POST', path: scenario.pathName, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: scenario.body });
      let first = 0;
      for await (const part of r.body) if (first === 0) first = performance.now() - begin;
      samples.push({ c, i, at: begin - t0, ms: performance.now() - begin, first });
    }
    await client.close();
  }));
  samples.sort((a, b) => b.ms - a.ms);
  const p = (q) => [...samples].sort((a, b) => a.ms - b.ms)[Math.floor(q * samples.length)].ms.toFixed(1);
  console.log(`round ${round}: n=${samples.length} p50=${p(0.5)} p99=${p(0.99)}; slowest:`, samples.slice(0, 8).map((s) => `c${s.c}#${s.i}@${s.at.toFixed(0)}:${s.ms.toFixed(0)}/${s.first.toFixed(0)}`).join(' '));
  const later = samples.filter((s) => s.i > 0).map((s) => s.ms).sort((a, b) => a - b);
  console.log('  without first-on-connection: p50', later[later.length >> 1].toFixed(1), 'p99', later[Math.floor(0.99 * later.length)].toFixed(1));
  const firsts = samples.filter((s) => s.i === 0);
  console.log('  first-on-connection p50', firsts.map((s) => s.ms).sort((a, b) => a - b)[Math.floor(firsts.length / 2)]?.toFixed(1), 'count slow>300ms', samples.filter((s) => s.ms > 300).length, 'of which first', samples.filter((s) => s.ms > 300 && s.i === 0).length);
}
igw.kill('SIGINT');
upstream.kill();
await new Promise((resolve) => igw.once('exit', resolve));
process.exit(0);
