import { describe, expect, it } from 'vitest';
import { checkChatCapabilities, resolveTarget } from '../../../src/inference/index.js';
import type { ChatRequest } from '../../../src/translate/chat/types.js';
import { gatewayErrorOf } from '../../helpers/thrown.js';
import { scopeFixture, TWO_ROUTES } from './scope-fixture.js';

/** Stage "preflight (capabilities)": what the model cannot take is refused before any upstream call. */
describe('checkChatCapabilities', () => {
  const { scope } = scopeFixture({ raw: TWO_ROUTES });
  const { resolved } = resolveTarget(scope, 'duo', ['chat']);
  const request = (change: Partial<ChatRequest>): ChatRequest => ({ model: 'duo', messages: [{ role: 'user', content: 'hi' }], ...change });

  it.each([
    { name: 'plain text fits', change: {}, code: undefined },
    { name: 'an image on a model without vision', change: { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } }] }] }, code: 'INFERENCE_3201' },
    { name: 'tools on a model without function calling', change: { tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] }, code: 'INFERENCE_3202' },
    { name: 'a prompt over the context window', change: { messages: [{ role: 'user', content: 'word '.repeat(200) }] }, code: 'INFERENCE_3207' },
    { name: 'over the byte bound, but the tokens fit', change: { messages: [{ role: 'user', content: 'word '.repeat(12) }] }, code: undefined },
    { name: 'max_tokens pushing past the window', change: { messages: [{ role: 'user', content: 'word '.repeat(12) }], max_tokens: 60 }, code: 'INFERENCE_3207' },
  ] as Array<{ name: string; change: Partial<ChatRequest>; code: string | undefined }>)('$name → $code', ({ change, code }) => {
    const run = () => checkChatCapabilities(resolved.id, resolved.model, request(change));
    if (code === undefined) expect(run).not.toThrow();
    else expect(gatewayErrorOf(run).code).toBe(code);
  });
});
