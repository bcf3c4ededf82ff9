/**
 * Dependency rules of ARCHITECTURE.md ("Dependencies point inward"), checked by
 * dependency-cruiser in `npm test` (test/architecture/dependency-rules.test.ts) and by
 * `npx depcruise --config scripts/dependency-rules.cjs src`.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'translate-is-pure',
      comment: 'translate/ maps wire shapes: of the project and its packages it imports nothing but translate/ and errors/ (ARCHITECTURE principle 2).',
      severity: 'error',
      from: { path: '^src/translate/' },
      to: { pathNot: '^src/(translate|errors)/', dependencyTypesNot: ['type-only', 'core'] },
    },
    {
      name: 'translate-does-no-io',
      comment: 'Of Node itself translate/ may use pure helpers (crypto hashes, util), never I/O: no fs, net, http, child processes.',
      severity: 'error',
      from: { path: '^src/translate/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?(fs|fs/promises|net|http|https|http2|child_process|dgram|dns|tls|worker_threads)$' },
    },
    {
      name: 'lowdb-only-in-store',
      comment: 'lowdb is a storage detail of store/ (ARCHITECTURE principle 7): feature repositories use the Collection<T> port (store/collection.ts) or JsonDocument, never Low.',
      severity: 'error',
      from: { pathNot: '^src/store/' },
      to: { path: 'node_modules/lowdb' },
    },
    {
      name: 'undici-only-at-the-http-edges',
      comment: 'undici is the upstream HTTP client (providers/http-client.ts), the SSRF-guarded fetcher (net/) and the CLI client (client/).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(providers/http-client\\.ts|net/|client/)' },
      to: { path: 'node_modules/undici' },
    },
    {
      name: 'ink-only-in-cli',
      comment: 'Terminal views (ink, react) are the CLI\'s; the gateway never loads them.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: 'node_modules/(ink|react)/' },
    },
    {
      name: 'hnswlib-only-in-its-index',
      comment: 'hnswlib-node is synchronous and fixed-capacity: one module wraps it.',
      severity: 'error',
      from: { pathNot: '^src/vector-stores/hnsw-index\\.ts$' },
      to: { path: 'node_modules/hnswlib-node' },
    },
    {
      name: 'inference-knows-no-http-or-surface',
      comment: 'inference/ is the one pipeline (ARCHITECTURE principle 11): it knows hub types, catalog, routing, billing and providers, never http/ or an endpoint (surfaces map its results).',
      severity: 'error',
      from: { path: '^src/inference/' },
      to: { path: '^src/(http|endpoints|app|batches|vector-stores)/' },
    },
    {
      name: 'http-knows-no-provider',
      comment: 'http/ is transport: it never reaches a provider adapter directly.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/providers/' },
    },
    {
      name: 'gateway-never-imports-the-cli',
      comment: 'The gateway does not depend on the command line (kb/ and usage/ are the CLI\'s sync and usage tasks).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(cli|client|kb|usage)/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'no-import-cycles',
      comment:
        'Import cycles tie modules into one knot (ARCHITECTURE principle 7): services get narrow ports built by the composition root (app/gateway.ts), never AppContext. ' +
        'Type-only imports count, and there is no exception (issue 18 broke the last endpoint cycles by moving shared types and helpers into their own files).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts'] },
  },
};
