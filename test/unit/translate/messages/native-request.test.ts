import { describe, expect, it } from 'vitest';
import { toNativeMessagesBody } from '../../../../src/translate/messages/native-request.js';
import type { MessagesRequest } from '../../../../src/translate/messages/types.js';

describe('toNativeMessagesBody', () => {
  const request = {
    model: 'claude-opus-whatever',
    max_tokens: 10,
    stream: true,
    thinking: { type: 'enabled', budget_tokens: 1000 },
    service_tier: 'auto',
    context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
    a_field_from_next_year: { x: 1 },
    blueprint_id: '00000000-0000-4000-8000-000000000000',
    cache_control: { type: 'ephemeral' },
    metadata: { user_id: 'u' },
    system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }],
    tools: [{ name: 't', input_schema: { type: 'object', properties: { cache_control: { type: 'string' } } }, cache_control: { type: 'ephemeral' } }],
    messages: [
      { role: 'user', content: 'plain' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 't', input: {}, cache_control: { type: 'ephemeral' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 'r', cache_control: { type: 'ephemeral' } }], cache_control: { type: 'ephemeral' } }] },
    ],
  } as unknown as MessagesRequest;

  it('forwards every field but igw\'s own; drops cache_control where the surface allows it, never inside a schema; replaces the model', () => {
    expect(toNativeMessagesBody(request, 'claude-up', false)).toEqual({
      model: 'claude-up',
      max_tokens: 10,
      thinking: { type: 'enabled', budget_tokens: 1000 },
      service_tier: 'auto',
      context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
      a_field_from_next_year: { x: 1 },
      metadata: { user_id: 'u' },
      system: [{ type: 'text', text: 's' }],
      tools: [{ name: 't', input_schema: { type: 'object', properties: { cache_control: { type: 'string' } } } }],
      messages: [
        { role: 'user', content: 'plain' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 't', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 'r' }] }] },
      ],
    });
  });

  it('stream flag only when streaming', () => {
    expect(toNativeMessagesBody(request, 'm', true)['stream']).toBe(true);
    expect(toNativeMessagesBody(request, 'm', false)).not.toHaveProperty('stream');
  });
});
