import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { UpstreamHttpClient } from '../../../src/providers/http-client.js';
import { CallerAbort, onAbort, signalOf } from '../../../src/util/caller-abort.js';

describe('CallerAbort', () => {
  it('a signal read before the abort is aborted with the same reason', () => {
    const abort = new CallerAbort();
    const signal = abort.signal;
    expect(signal.aborted).toBe(false);
    const reason = new Error('client disconnected');
    abort.abort(reason);
    expect(abort.aborted).toBe(true);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
  });

  it('a signal first read after the abort is made already aborted', () => {
    const abort = new CallerAbort();
    abort.abort('gone');
    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBe('gone');
    expect(signalOf(abort)).toBe(abort.signal);
  });

  it('onAbort calls once, for either kind, and stops when told', () => {
    for (const make of [() => new CallerAbort(), () => new AbortController()]) {
      const source = make();
      const watch = source instanceof CallerAbort ? source : source.signal;
      let calls = 0;
      let stoppedCalls = 0;
      onAbort(watch, () => (calls += 1));
      const stop = onAbort(watch, () => (stoppedCalls += 1));
      stop();
      source.abort('x');
      source.abort('again');
      expect(calls).toBe(1);
      expect(stoppedCalls).toBe(0);
    }
  });

  it('aborting it cancels an upstream call in flight: the call rejects with the reason and the socket closes', async () => {
    const arrived: IncomingMessage[] = [];
    const server = createServer((request) => arrived.push(request)); // never answers
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const client = new UpstreamHttpClient();
    try {
      const abort = new CallerAbort();
      const call = client.postJson(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x`, { a: 1 }, { timeoutMs: 10_000, signal: abort });
      while (arrived.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const closed = once(arrived[0]!.socket, 'close');
      const reason = new Error('client disconnected');
      abort.abort(reason);
      await expect(call).rejects.toBe(reason);
      await closed;
      expect(abort.listenerCount('abort')).toBe(0);
    } finally {
      await client.close();
      server.closeAllConnections();
      server.close();
    }
  });

  it('an upstream call that ends normally stops watching the caller', async () => {
    const server = createServer((_request, response) => response.end('{"ok":true}'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const client = new UpstreamHttpClient();
    try {
      const abort = new CallerAbort();
      const answer = await client.postJson(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x`, {}, { timeoutMs: 10_000, signal: abort });
      expect(answer.json).toEqual({ ok: true });
      expect(abort.listenerCount('abort')).toBe(0);
    } finally {
      await client.close();
      server.close();
    }
  });
});
