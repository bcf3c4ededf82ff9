import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { genericFieldName, parseForwardCompatible } from '../../../src/endpoints/validation/forward-compatible.js';
import { parseOpenRequest } from '../../../src/endpoints/validation/parse.js';
import { gatewayErrorOf } from '../../helpers/thrown.js';

const block = z.discriminatedUnion('type', [z.object({ type: z.literal('text'), text: z.string() }).strict(), z.object({ type: z.literal('image'), url: z.string() }).strict()]);
const schema = z
  .object({
    model: z.string(),
    content: z.union([z.string(), z.array(block)]),
    tools: z.array(z.object({ name: z.string(), options: z.object({ deep: z.boolean().optional() }).strict().optional() }).strict()).optional(),
  })
  .strict();

describe('parseForwardCompatible (DESIGN §5)', () => {
  it('removes unknown names at any depth (inside unions too), names them, and leaves the input untouched', () => {
    const body = { model: 'm', next_year: 1, content: [{ type: 'text', text: 'x', new_flag: true }], tools: [{ name: 'a', options: { deep: true, deeper: 2 } }, { name: 'b', hint: 'h' }] };
    const copy = structuredClone(body);
    const parsed = parseForwardCompatible(schema, body, false);
    expect(parsed).toEqual({
      success: true,
      data: { model: 'm', content: [{ type: 'text', text: 'x' }], tools: [{ name: 'a', options: { deep: true } }, { name: 'b' }] },
      unknownFields: expect.arrayContaining(['next_year', 'content[0].new_flag', 'tools[0].options.deeper', 'tools[1].hint']),
    });
    expect(body).toEqual(copy);
  });

  it('a body without unknown names parses as is', () => {
    const body = { model: 'm', content: 'x' };
    expect(parseForwardCompatible(schema, body, false)).toEqual({ success: true, data: body, unknownFields: [] });
  });

  it('a bad value in a known field still fails, reported before any unknown name', () => {
    const parsed = parseForwardCompatible(schema, { zzz: 1, model: 3, content: 'x' }, false);
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(parsed.issues[0]).toMatchObject({ code: 'invalid_type', path: ['model'] });
  });

  it('strict mode (server.strict_params) refuses the unknown name', () => {
    const parsed = parseForwardCompatible(schema, { model: 'm', content: 'x', tools: [{ name: 'a', typo: 1 }] }, true);
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(parsed.issues[0]).toMatchObject({ code: 'unrecognized_keys', path: ['tools', 0], keys: ['typo'] });
    const error = gatewayErrorOf(() => parseOpenRequest(schema, { model: 'm', content: 'x', typo: 1 }, true));
    expect(error).toMatchObject({ code: 'VALIDATION_4005', details: { field: 'typo' } });
    expect(parseOpenRequest(schema, { model: 'm', content: 'x', typo: 1 }, false)).toEqual({ data: { model: 'm', content: 'x' }, unknownFields: ['typo'] });
  });

  it('folds array positions for the header', () => {
    expect(genericFieldName('tools[12].eager_input_streaming')).toBe('tools[].eager_input_streaming');
    expect(genericFieldName('messages[3].content[0].x')).toBe('messages[].content[].x');
  });
});
