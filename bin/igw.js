#!/usr/bin/env node
// Thin launcher: all logic lives in src/cli (compiled to dist/ by `npm install`'s prepare step).
import('../dist/cli/main.js').then((m) => m.main(process.argv)).catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli/main.js')) {
    process.stderr.write('igw: the build is missing. Run `npm install` (or `npm run build`) in the igw folder first.\n');
    process.exit(1);
  }
  throw error;
});
