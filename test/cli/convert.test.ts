import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupAll, igw, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { documentsRoot } from '../unit/documents/fixtures.js';

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(cleanupAll);

describe('igw convert (in process: no gateway, no key)', () => {
  it('prints Markdown on stdout and nothing on stderr', async () => {
    const result = await igw(sandbox, ['convert', path.join(documentsRoot, 'docx/tables.docx')]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('| Top left | Top right |');
  });

  it('--format text --json prints the API document object', async () => {
    const result = await igw(sandbox, ['convert', path.join(documentsRoot, 'pdf/scotus-transcript-p1.pdf'), '--format', 'text', '--json']);
    expect(result.exitCode).toBe(0);
    const document = JSON.parse(result.stdout) as { object: string; type: string; format: string; pages: unknown[]; metadata: { pages: number; tokens: number } };
    expect(document).toMatchObject({ object: 'document', type: 'pdf', format: 'text' });
    expect(document.metadata.pages).toBe(1);
    expect(document.metadata.tokens).toBeGreaterThan(100);
  });

  it('a file it cannot read exits 1 with the reason and the next step, no stack trace', async () => {
    const result = await igw(sandbox, ['convert', path.join(documentsRoot, 'json/planets.json'), '--format', 'html']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/--format must be md or text/);
    expect(result.stderr).not.toMatch(/\bat \S+ \(/);
    const missing = await igw(sandbox, ['convert', path.join(sandbox.root, 'nope.pdf')]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('is not a file');
  });
});
