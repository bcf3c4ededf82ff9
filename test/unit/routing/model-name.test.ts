import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { FLAVORS, parseModelName } from '../../../src/routing/model-name.js';

describe('parseModelName', () => {
  it.each<{ requested: string; id: string; flavor: string | null }>([
    { requested: 'gpt-4o-mini', id: 'gpt-4o-mini', flavor: null },
    { requested: 'gpt-4o-mini:eco', id: 'gpt-4o-mini', flavor: 'eco' },
    { requested: 'gpt-4o-mini:free', id: 'gpt-4o-mini', flavor: 'free' },
    { requested: 'gpt-4o-mini:speed', id: 'gpt-4o-mini', flavor: 'speed' },
    { requested: 'gpt-4o-mini:batch', id: 'gpt-4o-mini', flavor: 'batch' },
    { requested: 'local-echo', id: 'local-echo', flavor: null },
    { requested: 'org/model:eco', id: 'org/model', flavor: 'eco' },
  ])('$requested → id $id, flavor $flavor', ({ requested, id, flavor }) => {
    expect(parseModelName(requested)).toEqual({ id, flavor, requested });
  });

  it.each(['gpt-4o-mini:fast', 'gpt-4o-mini:', 'gpt-4o-mini:ECO', 'gpt-4o-mini:eco:', 'llama3:8b', 'gpt-4o-mini:eco ', ':'])('%s → INFERENCE_3001', (requested) => {
    try {
      parseModelName(requested);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).code).toBe('INFERENCE_3001');
      expect((error as GatewayError).status).toBe(404);
      expect((error as GatewayError).details).toEqual({ model: requested });
    }
  });

  it('knows exactly the four flavors of the spec', () => {
    expect([...FLAVORS].sort()).toEqual(['batch', 'eco', 'free', 'speed']);
  });
});
