import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const rules = path.join(root, 'scripts', 'dependency-rules.cjs');
const depcruise = path.join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

async function cruise(cwd: string) {
  return execa(process.execPath, [depcruise, '--config', rules, '--output-type', 'err', 'src'], { cwd, reject: false });
}

/** ARCHITECTURE principle 7, checked by dependency-cruiser (rules in scripts/dependency-rules.cjs). */
describe('dependency rules', () => {
  it('src/ breaks none of the error-level rules', async () => {
    const result = await cruise(root);
    expect(result.stdout + result.stderr).not.toMatch(/\berror\b/);
    expect(result.exitCode).toBe(0);
  }, 60_000);

  it('the checker catches planted violations (translate/ importing providers/ and node:fs)', async () => {
    const result = await cruise(path.join(root, 'test', 'architecture', 'violation'));
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout + result.stderr).toContain('translate-is-pure');
    expect(result.stdout + result.stderr).toContain('translate-does-no-io');
  }, 60_000);

  it('import cycles are errors, type-only ones too, inside one folder as across folders', async () => {
    const output = errorLines((await cruise(path.join(root, 'test', 'architecture', 'violation'))).stdout);
    // app/context.ts ↔ batches/batch-service.ts: the service taking the app context back.
    expect(output).toContain('error no-import-cycles: src/app/context.ts → src/batches/batch-service.ts → src/app/context.ts');
    // An endpoint and the module that runs its stream importing each other (the knot the one
    // pipeline untied: responses-turns.ts now holds what both use).
    expect(output).toContain('error no-import-cycles: src/endpoints/responses-stream.ts → src/endpoints/responses.ts → src/endpoints/responses-stream.ts');
    expect(output).toContain('error no-import-cycles: src/endpoints/responses.ts → src/endpoints/shared/metering.ts → src/endpoints/responses.ts');
  }, 60_000);

  it('lowdb outside store/ is an error', async () => {
    const output = errorLines((await cruise(path.join(root, 'test', 'architecture', 'violation'))).stdout);
    expect(output).toMatch(/error lowdb-only-in-store: src\/vector-stores\/repository\.ts → \S*node_modules\/lowdb\//);
  }, 60_000);
});

/** The `err` reporter's violations, one per line (a cycle's path is spread over several lines). */
function errorLines(output: string): string {
  return output.replace(/ →\s*\n\s*/g, ' → ');
}
