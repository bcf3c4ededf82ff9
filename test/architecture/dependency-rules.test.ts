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
});
