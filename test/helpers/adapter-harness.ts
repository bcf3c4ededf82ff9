import { afterAll, afterEach, beforeAll } from 'vitest';
import { UpstreamHttpClient } from '../../src/providers/http-client.js';
import { startFakeUpstream, type FakeHandler, type FakeUpstream } from './fake-upstream.js';

/**
 * Registers the hooks an adapter suite needs: one shared UpstreamHttpClient for the suite, and
 * fake upstreams that are closed after each test.
 */
export function adapterHarness(): { readonly httpClient: UpstreamHttpClient; upstream(handler: FakeHandler): Promise<FakeUpstream> } {
  let httpClient: UpstreamHttpClient | undefined;
  const upstreams: FakeUpstream[] = [];
  beforeAll(() => {
    httpClient = new UpstreamHttpClient();
  });
  afterAll(async () => {
    await httpClient?.close();
  });
  afterEach(async () => {
    await Promise.all(upstreams.splice(0).map((upstream) => upstream.close()));
  });
  return {
    get httpClient() {
      if (httpClient === undefined) throw new Error('adapterHarness: httpClient is only available inside tests');
      return httpClient;
    },
    async upstream(handler) {
      const upstream = await startFakeUpstream(handler);
      upstreams.push(upstream);
      return upstream;
    },
  };
}
