import type { GlobalOptions } from '../global-options.js';

/** Exit code of a follow stopped by Ctrl-C (128 + SIGINT), as shells report it. */
export const INTERRUPTED_EXIT_CODE = 130;

/** A word as a POSIX shell reads it back unchanged. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command that resumes following a batch with the same outputs: `igw batch wait ID
 * --output results.jsonl`. The gateway URL is repeated when it was given as a flag (an
 * environment variable is still set in that shell); the API key never is.
 */
export function followAgainCommand(id: string, options: { output?: string; errors?: string; json?: boolean }, globals: GlobalOptions): string {
  const words = ['igw'];
  if (globals.baseUrl !== undefined) words.push('--base-url', globals.baseUrl);
  words.push('batch', 'wait', id);
  if (options.output !== undefined) words.push('--output', options.output);
  if (options.errors !== undefined) words.push('--errors', options.errors);
  if (options.json === true) words.push('--json');
  return words.map(shellQuote).join(' ');
}

/**
 * While following a batch, Ctrl-C (SIGINT) stops following, not the batch: `say` tells how to
 * resume, then the process exits 130. Returns the function that removes the handler.
 */
export function onInterrupt(say: () => void): () => void {
  const handler = () => {
    say();
    process.exit(INTERRUPTED_EXIT_CODE);
  };
  process.once('SIGINT', handler);
  return () => process.off('SIGINT', handler);
}
