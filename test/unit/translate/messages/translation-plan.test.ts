import { describe, expect, it } from 'vitest';
import { planMessagesTranslation } from '../../../../src/translate/messages/translation-plan.js';
import type { MessagesRequest } from '../../../../src/translate/messages/types.js';

const base: MessagesRequest = { model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] };
const plan = (request: Partial<MessagesRequest>, reasoning = true) => planMessagesTranslation({ ...base, ...request }, { reasoning });

describe('planMessagesTranslation (DESIGN §5: drop and name, or refuse by name)', () => {
  it('nothing to say about a plain request', () => {
    expect(plan({})).toEqual({ ignored: [], refusal: undefined });
  });

  it('serving fields, thinking, tool hints and thinking blocks are dropped and named', () => {
    const result = plan({
      service_tier: 'auto',
      speed: 'fast',
      inference_geo: 'us',
      context_management: { edits: [] },
      container: null,
      thinking: { type: 'enabled', budget_tokens: 1000 },
      tools: [{ name: 'f', input_schema: {}, eager_input_streaming: true, input_examples: [{}], defer_loading: false }],
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'tool_use', id: 'x', name: 'f', input: {}, caller: { type: 'direct' } }] },
      ],
    });
    expect(result.refusal).toBeUndefined();
    expect(result.ignored).toEqual([
      'service_tier',
      'speed',
      'inference_geo',
      'context_management',
      'thinking',
      'tools[0].eager_input_streaming',
      'tools[0].input_examples',
      'tools[0].defer_loading',
      'messages[].content[thinking]',
      'messages[1].content[1].caller',
    ]);
  });

  it('disabled thinking is nothing to drop; effort is named only for a model that does not reason', () => {
    expect(plan({ thinking: { type: 'disabled' }, output_config: { effort: 'high' } }).ignored).toEqual([]);
    expect(plan({ output_config: { effort: 'high' } }, false).ignored).toEqual(['output_config.effort']);
  });

  it('refuses what only Anthropic\'s servers can do: server tools, server-held threads', () => {
    // igw runs mcp_servers itself, streamed or not (endpoints/messages-mcp.ts).
    expect(plan({ stream: true, mcp_servers: [{ type: 'url', url: 'https://x', name: 'x' }] }).refusal).toBeUndefined();
    expect(plan({ mcp_servers: [{ type: 'url', url: 'https://x', name: 'x' }] }).refusal).toBeUndefined();
    expect(plan({ mcp_servers: [] }).refusal).toBeUndefined();
    expect(plan({ tools: [{ name: 'f', input_schema: {} }, { type: 'bash_20250124', name: 'bash' }] }).refusal).toMatchObject({ details: { field: 'tools[1]' } });
    expect(plan({ thread: { type: 'create' } }).refusal).toMatchObject({ details: { field: 'thread' } });
  });

  it('blocks only Anthropic reads (documents, server tool results, …) are refused by name, in tool results too', () => {
    const document = { type: 'document' as const, source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } };
    expect(plan({ messages: [{ role: 'user', content: [{ type: 'text', text: 'summarise' }, document] }] }).refusal).toMatchObject({ details: { field: 'messages[0].content[1]' } });
    const inResult = { type: 'tool_result' as const, tool_use_id: 't', content: [{ type: 'search_result' as const, source: 's', title: 't', content: [] }] };
    expect(plan({ messages: [{ role: 'user', content: [inResult] }] }).refusal?.message).toContain('"search_result" block');
  });

  it('mid-conversation system messages: beta options named, tool changes refused', () => {
    const system = { role: 'system' as const, content: [], clear_at: 'next_user_message', output_config: { effort: 'low' } };
    expect(plan({ messages: [{ role: 'user', content: 'a' }, system] }).ignored).toEqual(['messages[1].clear_at', 'messages[1].output_config']);
    const change = { role: 'system' as const, content: [{ type: 'tool_addition' as const, tool: { name: 'f' } }] };
    expect(plan({ messages: [{ role: 'user', content: 'a' }, change] }).refusal).toMatchObject({ details: { field: 'messages[1].content[0]' } });
  });
});
