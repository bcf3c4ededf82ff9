// npm run bench (after the gateway bench): chunking throughput on 10 MB inputs, in MB/s of
// source text, for the `auto` strategy (800 / 400) and a small static one (200 / 100).
// Runs the built code (dist/), like the gateway bench. BENCH_CHUNK_MB changes the input size.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { chunkText } = await import(pathToFileURL(path.join(root, 'dist/chunking/chunk-text.js')).href);
const SIZE_MB = Number(process.env.BENCH_CHUNK_MB ?? 10);

/** Seeded generator: the same inputs every run. */
function random(seed) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** Prose over a 30,000-word synthetic vocabulary with a Zipf-like skew, in paragraphs. */
function prose(bytes) {
  const next = random(1);
  const syllables = ['ka', 'lo', 'mi', 'tren', 'sor', 'va', 'quel', 'dis', 'per', 'un', 'ex', 'ion', 'ra', 'te', 'ble', 'ment', 'ing', 'str', 'op', 'al'];
  const vocabulary = Array.from({ length: 30000 }, () => Array.from({ length: 1 + Math.floor(next() * 4) }, () => syllables[Math.floor(next() * syllables.length)]).join(''));
  const parts = [];
  let size = 0;
  while (size < bytes) {
    const sentences = 2 + Math.floor(next() * 6);
    let paragraph = '';
    for (let s = 0; s < sentences; s += 1) {
      const words = 5 + Math.floor(next() * 20);
      const sentence = Array.from({ length: words }, () => vocabulary[Math.floor(vocabulary.length * next() ** 3)]).join(' ');
      paragraph += `${sentence[0].toUpperCase()}${sentence.slice(1)}${next() < 0.1 ? '?' : '.'} `;
    }
    parts.push(paragraph.trimEnd());
    size += paragraph.length + 2;
  }
  return parts.join('\n\n');
}

/** Source-code-like lines: identifiers, numbers, punctuation, indentation. */
function code(bytes) {
  const next = random(2);
  const names = Array.from({ length: 5000 }, (_, i) => `value${i.toString(36)}${['Count', 'Name', 'Index', 'Map', ''][i % 5]}`);
  const lines = [];
  let size = 0;
  while (size < bytes) {
    const indent = '  '.repeat(Math.floor(next() * 4));
    const a = names[Math.floor(next() * names.length)];
    const b = names[Math.floor(next() * names.length)];
    const line = `${indent}const ${a} = compute(${b}, ${Math.floor(next() * 100000)}, "${b.slice(0, 6)}"); // ${a.length}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

const inputs = [
  ['prose', prose(SIZE_MB * 1e6)],
  ['code', code(SIZE_MB * 1e6)],
];
const strategies = [
  ['auto 800/400', { maxTokens: 800, overlapTokens: 400 }],
  ['static 200/100', { maxTokens: 200, overlapTokens: 100 }],
];

chunkText('warm up the tokenizer', { maxTokens: 100, overlapTokens: 0 });
console.log(`\nchunking (${SIZE_MB} MB inputs, one run each, built code)`);
console.log('input  | strategy       | chunks  | tokens/chunk | seconds | MB/s');
console.log('-------|----------------|---------|--------------|---------|------');
for (const [inputName, text] of inputs) {
  const megabytes = Buffer.byteLength(text) / 1e6;
  for (const [strategyName, options] of strategies) {
    const started = performance.now();
    const chunks = chunkText(text, options);
    const seconds = (performance.now() - started) / 1000;
    const average = chunks.reduce((sum, chunk) => sum + chunk.tokens, 0) / chunks.length;
    console.log(`${inputName.padEnd(6)} | ${strategyName.padEnd(14)} | ${String(chunks.length).padStart(7)} | ${average.toFixed(0).padStart(12)} | ${seconds.toFixed(2).padStart(7)} | ${(megabytes / seconds).toFixed(1)}`);
  }
}
