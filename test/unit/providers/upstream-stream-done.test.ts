import { describe, expect, it } from 'vitest';
import type { UpstreamHttpClient } from '../../../src/providers/http-client.js';
import { upstreamSseBatches, type StreamDialect } from '../../../src/providers/upstream-stream.js';

const dialect: StreamDialect = { providerId: 'acme', failure: (error) => error, errorPayload: (text) => text, errorEnvelope: () => undefined };

/**
 * `[DONE]` ends the stream at once: the consumer does not wait for the body's end (a later read),
 * so the client's last events and the end of its body can leave together; the rest of the body
 * is still read to its end under the idle timer, so the keep-alive socket goes back to the pool.
 */
describe('upstreamSseBatches after [DONE]', () => {
  function upstream(parts: string[]) {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const state = { bodyFinished: false, armed: 0, disarmed: 0, running: false };
    async function* body(): AsyncGenerator<Uint8Array> {
      try {
        for (const part of parts) yield new TextEncoder().encode(part);
        // The upstream has sent [DONE] but has not ended its body yet.
        await held;
      } finally {
        state.bodyFinished = true;
      }
    }
    const idle = {
      arm: () => {
        state.armed += 1;
        state.running = true;
      },
      progress: () => undefined,
      disarm: () => {
        state.disarmed += 1;
        state.running = false;
      },
    };
    const client = { postStream: async () => ({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: body(), text: undefined, idle }) } as unknown as UpstreamHttpClient;
    return { client, state, release };
  }

  it('ends with sawDone before the body ends, then reads the rest under the idle timer', async () => {
    const { client, state, release } = upstream(['data: 1\n\ndata: 2\n\ndata: [DONE]\n\n']);
    const stream = upstreamSseBatches(client, 'http://upstream.test/v1/chat/completions', {}, { headers: {}, timeoutMs: 1_000, signal: new AbortController() as never }, dialect);
    const seen: string[][] = [];
    let end: { sawDone: boolean } | undefined;
    const drained = (async () => {
      for (;;) {
        const step = await stream.next();
        if (step.done === true) return (end = step.value);
        seen.push(step.value.map((event) => event.data));
      }
    })();
    const first = await Promise.race([drained, new Promise((resolve) => setTimeout(() => resolve('waited for the body end'), 300))]);
    expect(first).toEqual({ sawDone: true });
    expect(end).toEqual({ sawDone: true });
    expect(seen).toEqual([['1', '2']]);
    expect(state.bodyFinished).toBe(false);
    // The rest of the body is being read, with the idle timer running.
    expect(state.running).toBe(true);
    release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(state.bodyFinished).toBe(true);
    expect(state.running).toBe(false);
  });

  it('a stream without [DONE] still ends with the body', async () => {
    const { client, state, release } = upstream(['data: 1\n\n']);
    const stream = upstreamSseBatches(client, 'http://upstream.test/v1/chat/completions', {}, { headers: {}, timeoutMs: 1_000, signal: new AbortController() as never }, dialect);
    expect((await stream.next()).value).toEqual([{ data: '1' }]);
    const next = stream.next();
    const first = await Promise.race([next, new Promise((resolve) => setTimeout(() => resolve('still open'), 100))]);
    expect(first).toBe('still open');
    release();
    expect(await next).toEqual({ done: true, value: { sawDone: false } });
    expect(state.bodyFinished).toBe(true);
  });
});
