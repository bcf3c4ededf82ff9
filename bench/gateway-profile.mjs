// Where igw's CPU goes under the gateway bench's load: igw runs under `node --cpu-prof`, one
// scenario at a time, and the profile is summarised by self time per function and per module.
// Profiles are robust to a shared machine's noise where wall-clock tables are not.
//   node bench/gateway-profile.mjs [chat|stream|embeddings] [connections] [seconds]
// PROFILE_TARGET=passthrough (or floor: bench/gateway-floor.mjs) profiles the bare node:http pass-through instead (same load, same
// upstream): its category table lines up with igw's, so the difference is what igw pays.
import { spawn } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { Pool } from 'undici';
import { prepareGateway, root, SCENARIOS, startFakeUpstream } from './gateway-setup.mjs';
import { cpuSeconds, firstLine } from './process.mjs';

const [scenarioName = 'chat', connectionsText = '32', secondsText = '10'] = process.argv.slice(2);
const connections = Number(connectionsText);
const seconds = Number(secondsText);
const top = Number(process.env.PROFILE_TOP ?? 40);

const target = process.env.PROFILE_TARGET ?? 'igw';
const { upstream, upstreamOrigin } = await startFakeUpstream();
const { workDir, env, key } = await prepareGateway(upstreamOrigin, 'igw-profile-');
const profileDir = path.join(workDir, 'profile');
const served = {
  igw: [path.join(root, 'bin/igw.js'), 'serve', '--port', '0'],
  passthrough: [path.join(root, 'bench/passthrough.mjs'), upstreamOrigin],
  floor: [path.join(root, 'bench/gateway-floor.mjs'), upstreamOrigin, key],
}[target];
const igw = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, ...served], { env, stdio: ['ignore', 'pipe', 'ignore'] });
const igwOrigin = (await firstLine(igw)).replace('igw listening on ', '');

const { pathName, body } = SCENARIOS[scenarioName];
const pool = new Pool(igwOrigin, { connections, pipelining: 1 });
let count = 0;
const run = (milliseconds) => {
  const deadline = performance.now() + milliseconds;
  return Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) {
        const response = await pool.request({ method: 'POST', path: pathName, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body });
        await response.body.text();
        count += 1;
      }
    }),
  );
};
// Warm up (the tokenizer loads after listen, modules compile, the JIT settles) outside the
// measured window: only samples taken while the measured load ran are counted.
await new Promise((resolve) => setTimeout(resolve, 2000));
await run(2000);
count = 0;
// Where the CPU goes besides the sampled main thread: user vs kernel time of the whole process,
// and the main thread vs the others (V8's GC and compiler workers, libuv's pool) from /proc.
const cpuSplit = async (pid) => {
  const split = { user: 0, kernel: 0, main: 0, others: 0 };
  for (const thread of await readdir(`/proc/${pid}/task`)) {
    const fields = (await readFile(`/proc/${pid}/task/${thread}/stat`, 'utf8')).split(') ')[1].split(' ');
    split.user += Number(fields[11]) / 100;
    split.kernel += Number(fields[12]) / 100;
    split[thread === String(pid) ? 'main' : 'others'] += (Number(fields[11]) + Number(fields[12])) / 100;
  }
  return split;
};
const splitBefore = await cpuSplit(igw.pid);
const cpuBefore = await cpuSeconds(igw.pid);
const loadStart = performance.now();
await run(seconds * 1000);
const loadEnd = performance.now();
const cpu = (await cpuSeconds(igw.pid)) - cpuBefore;
const splitAfter = await cpuSplit(igw.pid);
igw.kill('SIGTERM');
await new Promise((resolve) => igw.once('exit', resolve));
const exited = performance.now();
await pool.close();
upstream.kill('SIGTERM');

const [file] = await readdir(profileDir);
const profile = JSON.parse(await readFile(path.join(profileDir, file), 'utf8'));
await rm(workDir, { recursive: true, force: true });
// The profile's clock is igw's own: place the window by its distance from the profile's end.
const windowStart = profile.endTime - (exited - loadStart) * 1000;
const windowEnd = profile.endTime - (exited - loadEnd) * 1000;
const deltas = new Map();
let at = profile.startTime;
for (let i = 0; i < profile.samples.length; i += 1) {
  at += profile.timeDeltas[i] ?? 0;
  if (at < windowStart || at > windowEnd) continue;
  deltas.set(profile.samples[i], (deltas.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const moduleOf = (url) => {
  if (url === '') return '(native/vm)';
  if (url.startsWith('node:')) return url;
  const nodeModules = url.lastIndexOf('node_modules/');
  if (nodeModules !== -1) return url.slice(nodeModules + 13).split('/').slice(0, url.slice(nodeModules + 13).startsWith('@') ? 2 : 1).join('/');
  const dist = url.indexOf('/dist/');
  return dist === -1 ? url : url.slice(dist + 6);
};
// One row per kind of work, so igw's table and the pass-through's line up: igw's own code by
// src/ folder, node's HTTP parser and server, streams, socket writes, undici, zod, GC, the rest.
const NET = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String', 'get buffer', 'shutdown', 'readStop', 'readStart']);
const categoryOf = (functionName, url) => {
  const group = moduleOf(url);
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(program)') return '(program: V8/libuv outside JS)';
  if (url === '' && NET.has(functionName)) return 'net: socket writes (writev, native)';
  if (functionName === 'runMicrotasks' || group === 'node:internal/process/task_queues') return 'microtasks / nextTick';
  if (url === '') return 'other native';
  if (group.startsWith('wasm://') || group === 'undici') return 'undici (incl. llhttp wasm)';
  if (group === 'zod') return 'zod';
  if (group === 'decimal.js') return 'decimal.js';
  if (['node:_http_server', 'node:_http_common', 'node:_http_incoming', 'node:_http_outgoing'].includes(group)) return 'node http (parser callbacks, server, outgoing)';
  if (group.startsWith('node:internal/streams') || group === 'node:stream') return 'node streams';
  if (['node:net', 'node:internal/stream_base_commons', 'node:internal/net'].includes(group)) return 'net: socket JS side';
  if (group.startsWith('node:internal/timers') || group === 'node:timers') return 'node timers';
  if (group === 'node:events' || group === 'node:internal/event_target' || group === 'node:internal/abort_controller') return 'node events / AbortSignal';
  if (group.startsWith('node:')) return 'other node';
  if (url.includes('node_modules/')) return `other: ${group}`;
  if (url.includes('/dist/')) return `igw ${group.includes('/') ? group.slice(0, group.indexOf('/')) : group}/`;
  if (url.includes('/bench/')) return 'bench script (pass-through or floor)';
  return `other: ${group}`;
};
const byCategory = new Map();
const byFunction = new Map();
const byModule = new Map();
let total = 0;
for (const node of profile.nodes) {
  const self = deltas.get(node.id) ?? 0;
  total += self;
  const { functionName, url, lineNumber } = node.callFrame;
  if (functionName !== '(idle)') byCategory.set(categoryOf(functionName, url), (byCategory.get(categoryOf(functionName, url)) ?? 0) + self);
  if (functionName === '(idle)' || functionName === '(program)') {
    byModule.set(functionName, (byModule.get(functionName) ?? 0) + self);
    continue;
  }
  const name = `${functionName || '(anonymous)'} ${moduleOf(url)}:${lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + self);
  const group = moduleOf(url);
  byModule.set(group, (byModule.get(group) ?? 0) + self);
}
const idle = byModule.get('(idle)') ?? 0;
const busy = total - idle;
const print = (title, map, limit) => {
  console.log(`\n${title}`);
  for (const [name, micros] of [...map].filter(([name]) => name !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, limit)) {
    console.log(`${((micros / busy) * 100).toFixed(1).padStart(5)} %  ${((micros / busy) * ((cpu * 1e6) / count)).toFixed(1).padStart(6)} us/req  ${name}`);
  }
};
// The sampler ticks on wall time, so on a loaded machine a descheduled thread's wait lands in
// whatever it was running: shares are read against the process's own CPU time (/proc).
console.log(`${target}: ${scenarioName}, ${connections} connections, ${seconds} s: ${count} requests, igw CPU ${((cpu * 1e6) / count).toFixed(0)} us per request (/proc utime+stime); profile busy ${(busy / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms; load average ${(await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ')}`);
{
  const perRequest = (name) => (((splitAfter[name] - splitBefore[name]) * 1e6) / count).toFixed(0);
  console.log(`CPU per request from /proc: user ${perRequest('user')} us, kernel ${perRequest('kernel')} us; main thread ${perRequest('main')} us, other threads (GC and compiler workers, libuv pool; under --cpu-prof also the sampler) ${perRequest('others')} us`);
  console.log('(the sampler runs on wall time: on a loaded machine a thread descheduled inside a syscall such as writev charges that wait to it; the kernel figure above is the real one)');
}
print('self time by category', byCategory, top);
print('self time by module', byModule, top);
print('self time by function', byFunction, top);

// PROFILE_CALLERS=name: the call paths (PROFILE_DEPTH frames up, default 5) that spend the named function's self time.
if (process.env.PROFILE_CALLERS) {
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
  const paths = new Map();
  for (const node of profile.nodes) {
    if (node.callFrame.functionName !== process.env.PROFILE_CALLERS) continue;
    const frames = [];
    for (let parent = parentOf.get(node.id); parent !== undefined && frames.length < Number(process.env.PROFILE_DEPTH ?? 5); parent = parentOf.get(parent.id)) frames.push(`${parent.callFrame.functionName || '(anonymous)'} ${moduleOf(parent.callFrame.url)}:${parent.callFrame.lineNumber + 1}`);
    const name = frames.join(' < ');
    paths.set(name, (paths.get(name) ?? 0) + (deltas.get(node.id) ?? 0));
  }
  print(`callers of ${process.env.PROFILE_CALLERS}`, paths, 12);
}

// PROFILE_ATTRIBUTE=category: that category's self time (e.g. 'node events') charged to the
// nearest igw function up the stack, to see which of igw's steps pays for node's work.
if (process.env.PROFILE_ATTRIBUTE) {
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
  const owners = new Map();
  for (const node of profile.nodes) {
    const self = deltas.get(node.id) ?? 0;
    if (self === 0 || !categoryOf(node.callFrame.functionName, node.callFrame.url).startsWith(process.env.PROFILE_ATTRIBUTE)) continue;
    let frame = node;
    while (frame !== undefined && !(frame.callFrame.url.includes('/dist/') && !frame.callFrame.url.includes('node_modules/'))) frame = parentOf.get(frame.id);
    const name = frame === undefined ? '(no igw frame: node or undici callbacks)' : `${frame.callFrame.functionName || '(anonymous)'} ${moduleOf(frame.callFrame.url)}:${frame.callFrame.lineNumber + 1}`;
    owners.set(name, (owners.get(name) ?? 0) + self);
  }
  print(`${process.env.PROFILE_ATTRIBUTE}: charged to the nearest igw function`, owners, 20);
}

// Inclusive (self + callees) time of igw's own functions: which stage of a request costs what.
{
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
  const inclusive = new Map();
  for (const node of profile.nodes) {
    const self = deltas.get(node.id) ?? 0;
    if (self === 0) continue;
    const seen = new Set();
    for (let frame = node; frame !== undefined; frame = parentOf.get(frame.id)) {
      const { functionName, url, lineNumber } = frame.callFrame;
      if (!url.includes('/dist/')) continue;
      const name = `${functionName || '(anonymous)'} ${moduleOf(url)}:${lineNumber + 1}`;
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + self);
    }
  }
  print("inclusive time of igw's functions", inclusive, top);
}

// PROFILE_CALLEES=name: where the named function's inclusive time goes (the self time of the
// functions under it, by function), to see what a callback really runs.
if (process.env.PROFILE_CALLEES) {
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
  const callees = new Map();
  for (const node of profile.nodes) {
    const self = deltas.get(node.id) ?? 0;
    if (self === 0) continue;
    let frame = node;
    while (frame !== undefined && frame.callFrame.functionName !== process.env.PROFILE_CALLEES) frame = parentOf.get(frame.id);
    if (frame === undefined) continue;
    const name = `${node.callFrame.functionName || '(anonymous)'} ${moduleOf(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
    callees.set(name, (callees.get(name) ?? 0) + self);
  }
  print(`under ${process.env.PROFILE_CALLEES}: self time by function`, callees, 20);
}
