import type { AppContext } from '../app/context.js';
import type { DocumentTools } from './document-tools.js';

// INTERIM (not to land): wired to src/documents and src/chunking when they land.
export function documentTools(app: AppContext): DocumentTools {
  void app;
  return {
    extract: async () => {
      throw Object.assign(new Error('no parser yet'), { code: 'unsupported_file' });
    },
    chunk: (text) => text.split(/\n{2,}/).filter((part) => part.trim() !== '').map((part) => ({ text: part, tokens: part.split(/\s+/).length })),
    fetchUrl: async () => {
      throw Object.assign(new Error('no fetcher yet'), { code: 'invalid_file' });
    },
  };
}
