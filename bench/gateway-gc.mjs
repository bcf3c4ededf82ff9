// What survives a scavenge per request (issue 18 item 3): igw under --trace-gc-nvp takes a steady
// load, and the GC lines of the measured window give the scavenges (count, mean pause) and the
// bytes promoted to the old generation per request. With A_ROOT set, that build is measured too,
// in alternating rounds, so a noisy machine hits both alike.
//   [A_ROOT=/path/to/other/checkout] node bench/gateway-gc.mjs [chat|stream|embeddings]
// GC_ROUNDS (default 2), GC_MS (measured window, default 6000) and GC_CONNECTIONS (default 32).
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Pool } from 'undici';
import { prepareGateway, root, SCENARIOS, startFakeUpstream } from './gateway-setup.mjs';

const scenario = SCENARIOS[process.argv[2] ?? 'chat'];
const rounds = Number(process.env.GC_ROUNDS ?? 2);
const windowMs = Number(process.env.GC_MS ?? 6000);
const connections = Number(process.env.GC_CONNECTIONS ?? 32);
const roots = process.env.A_ROOT === undefined ? [['B', root]] : [['A', process.env.A_ROOT], ['B', root]];

const { upstream, upstreamOrigin } = await startFakeUpstream();

/** One build under load: requests answered in the window and its GC lines. */
async function measure(buildRoot) {
  const { workDir, env, key } = await prepareGateway(upstreamOrigin, 'igw-gc-');
  // --trace-gc-nvp writes to stdout, beside the listening line.
  // GC_NODE_FLAGS: V8 flags to try (e.g. --no-allocation-site-pretenuring), given to every build measured.
  const flags = (process.env.GC_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, ['--trace-gc-nvp', ...flags, path.join(buildRoot, 'bin/igw.js'), 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (data) => (out += data));
  try {
    const origin = await new Promise((resolve, reject) => {
      const poll = setInterval(() => {
        const found = /igw listening on (\S+)/.exec(out);
        if (found !== null) resolve(found[1]);
        if (found !== null || child.exitCode !== null) clearInterval(poll);
        if (child.exitCode !== null) reject(new Error(`igw exited with ${child.exitCode}`));
      }, 20);
    });
    const pool = new Pool(origin, { connections, pipelining: 1 });
    let count = 0;
    const load = (milliseconds) => {
      const deadline = performance.now() + milliseconds;
      return Promise.all(
        Array.from({ length: connections }, async () => {
          while (performance.now() < deadline) {
            const response = await pool.request({ method: 'POST', path: scenario.pathName, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: scenario.body });
            await response.body.dump();
            if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
            count += 1;
          }
        }),
      );
    };
    await load(3000); // warm-up: JIT, pools, tokenizer, new space grown to its working size
    const [countBefore, outBefore] = [count, out.length];
    await load(windowMs);
    await pool.close();
    return { requests: count - countBefore, lines: out.slice(outBefore).split('\n').filter((line) => /\bgc=/.test(line)) };
  } finally {
    // Let igw flush and exit before its data dir goes.
    const exited = new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
    child.kill();
    await exited;
    await rm(workDir, { recursive: true, force: true });
  }
}

const field = (line, name) => Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
console.log(`gateway GC, ${scenario.name}: ${rounds} rounds of ${windowMs} ms at ${connections} connections`);
try {
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, buildRoot] of round % 2 === 0 ? roots : [...roots].reverse()) {
      const { requests, lines } = await measure(buildRoot);
      const scavenges = lines.filter((line) => / gc=s /.test(line));
      const pause = scavenges.reduce((sum, line) => sum + field(line, 'pause'), 0);
      const promoted = lines.reduce((sum, line) => sum + field(line, 'promoted'), 0);
      // Bytes allocated between GCs: unlike CPU time, barely moved by what else the machine runs.
      const allocated = lines.reduce((sum, line) => sum + field(line, 'allocated'), 0);
      const count = Math.max(1, scavenges.length);
      console.log(`${name} ${buildRoot}: ${requests} requests; ${scavenges.length} scavenges (one per ${(requests / count).toFixed(0)} requests, mean pause ${(pause / count).toFixed(2)} ms); ${lines.length - scavenges.length} other GCs; promoted ${(promoted / requests / 1024).toFixed(2)} KB per request; allocated ${(allocated / requests / 1024).toFixed(1)} KB per request`);
    }
  }
} finally {
  upstream.kill();
}
