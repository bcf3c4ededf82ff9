import { afterAll, afterEach, beforeAll } from 'vitest';
import { startFakeUpstream, type FakeHandler, type FakeUpstream } from './fake-upstream.js';
import { startTestGateway, upstreamConfig, type TestGateway } from './gateway.js';

export interface UpstreamSuite {
  upstream: FakeUpstream;
  igw: TestGateway;
}

/**
 * Registers the usual lifecycle for a describe block: a fake upstream with `handler`, one real
 * gateway configured against it (`configure(upstream.url)`), both closed after the block, the
 * recorded upstream requests cleared after each test. Read the fields inside tests.
 */
export function useUpstreamGateway(handler: FakeHandler, configure: (upstreamUrl: string) => Record<string, unknown>): UpstreamSuite {
  const suite = {} as UpstreamSuite;
  beforeAll(async () => {
    suite.upstream = await startFakeUpstream(handler);
    suite.igw = await startTestGateway(configure(suite.upstream.url));
  });
  afterAll(async () => {
    await suite.igw?.close();
    await suite.upstream?.close();
  });
  afterEach(() => {
    if (suite.upstream !== undefined) suite.upstream.requests.length = 0;
  });
  return suite;
}

/** upstreamConfig with provider "up" speaking the OpenAI Responses API (`responses_api: true`): /v1/responses with hosted tools goes to it natively. */
export function responsesApiUpstreamConfig(upstreamUrl: string): Record<string, unknown> {
  const config = upstreamConfig(upstreamUrl) as { providers: Record<string, Record<string, unknown>> };
  config.providers['up'] = { ...config.providers['up'], vendor: 'openai', responses_api: true };
  return config;
}
