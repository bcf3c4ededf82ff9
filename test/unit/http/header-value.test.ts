import { describe, expect, it } from 'vitest';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { attachmentDisposition, echoableHeaderValue, echoableList, validHeaders, writeHeadSafely, writeHeadWith } from '../../../src/http/header-value.js';

describe('echoableHeaderValue', () => {
  it.each([
    ['req-42', 'req-42'],
    ['a b', 'a b'],
    ['x'.repeat(256), 'x'.repeat(256)],
  ])('keeps %j', (value, expected) => {
    expect(echoableHeaderValue(value)).toBe(expected);
  });

  it.each([
    ['control character', 'a\u0001b'],
    ['CR LF', 'a\r\nb: c'],
    ['tab', 'a\tb'],
    ['latin-1', 'caf\u00e9'],
    ['above U+00FF', 'a\u0100'],
    ['emoji', 'a😀'],
    ['empty', ''],
    ['leading space', ' a'],
    ['trailing space', 'a '],
    ['too long', 'x'.repeat(257)],
    ['not a string', 42],
    ['undefined', undefined],
  ])('drops a value with %s', (_name, value) => {
    expect(echoableHeaderValue(value)).toBeUndefined();
  });

  it('honours a tighter limit', () => {
    expect(echoableHeaderValue('12345', 4)).toBeUndefined();
  });
});

describe('validHeaders', () => {
  it('keeps what Node can write and leaves out the rest', () => {
    expect(validHeaders({ ok: 'v', latin: 'caf\u00e9', number: 3, list: ['a', 'b'], bad: 'a\u0000', wide: '\u0100', 'bad name': 'v', badList: ['a', 'b\n'], gone: undefined })).toEqual({
      ok: 'v',
      latin: 'caf\u00e9',
      number: 3,
      list: ['a', 'b'],
    });
  });
});

describe('attachmentDisposition', () => {
  it('encodes the name per RFC 8187', () => {
    expect(attachmentDisposition('rapport été.pdf')).toBe("attachment; filename*=UTF-8''rapport%20%C3%A9t%C3%A9.pdf");
  });

  it('survives a lone surrogate (valid JSON, not UTF-8)', () => {
    expect(attachmentDisposition('a\uD800b')).toBe("attachment; filename*=UTF-8''a%EF%BF%BDb");
    expect(attachmentDisposition('😀')).toBe("attachment; filename*=UTF-8''%F0%9F%98%80");
  });
});

describe('echoableList', () => {
  it('joins the sane names and leaves out the others', () => {
    expect(echoableList(['top_k', 'caf\u00e9', 'a\u0001', 'metadata.x'])).toBe('top_k, metadata.x');
  });

  it('stops at the length limit with a marker', () => {
    const names = Array.from({ length: 100 }, (_, index) => `field_${index}`);
    const value = echoableList(names, 40)!;
    expect(value).toBe('field_0, field_1, field_2, field_3, ...');
  });

  it('is undefined when nothing can be shown', () => {
    expect(echoableList([])).toBeUndefined();
    expect(echoableList(['\u00e9'])).toBeUndefined();
  });
});

describe('writeHeadSafely', () => {
  it('writes a head Node would refuse with the invalid header left out, and a valid head as is', async () => {
    const server = createServer((request, response) => {
      const bad = request.url === '/bad';
      writeHeadSafely(response, 201, { 'x-ok': 'yes', ...(bad ? { 'x-bad': 'line\nbreak' } : {}) });
      response.end('done');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      for (const path of ['/bad', '/good']) {
        const answer = await fetch(`http://127.0.0.1:${port}${path}`);
        expect(answer.status).toBe(201);
        expect(answer.headers.get('x-ok')).toBe('yes');
        expect(answer.headers.get('x-bad')).toBeNull();
        expect(await answer.text()).toBe('done');
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('writeHeadWith', () => {
  /** The raw head lines (name, value, in order; Date left out) a server answers `path` with. */
  async function rawHead(port: number, path: string): Promise<string[]> {
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest({ host: '127.0.0.1', port, path }, (answer) => {
        answer.resume();
        const raw = answer.rawHeaders;
        const lines: string[] = [];
        for (let at = 0; at < raw.length; at += 2) if (raw[at]!.toLowerCase() !== 'date') lines.push(`${raw[at]}: ${raw[at + 1]}`);
        answer.on('end', () => resolve([String(answer.statusCode), ...lines]));
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
  }

  const cases: Record<string, { headers: Record<string, string>; own: Array<string | number> }> = {
    plain: { headers: { 'x-request-id': 'req_1', 'x-ratelimit-limit-requests': '60' }, own: ['content-type', 'application/json', 'content-length', 4] },
    // A name the exchange's headers already hold keeps its place and takes the answer's value.
    overridden: { headers: { 'x-request-id': 'req_2', 'content-type': 'text/plain', vary: 'Origin' }, own: ['content-type', 'application/json', 'content-length', 4] },
    // A value that happens to equal a header name is not taken for one.
    valueLikeName: { headers: { 'x-request-id': 'req_3', no: 'yes' }, own: ['x-accel-buffering', 'no', 'content-length', 4] },
    none: { headers: {}, own: ['content-length', 4] },
    invalid: { headers: { 'x-request-id': 'req_4', 'x-bad': 'line\nbreak' }, own: ['content-length', 4] },
  };

  it('writes the head a spread of the two would, in the same order, without the invalid header', async () => {
    const server = createServer((request, response) => {
      const [kind, name] = request.url!.slice(1).split('/') as [string, string];
      const { headers, own } = cases[name]!;
      if (kind === 'flat') writeHeadWith(response, 200, headers, own);
      else {
        const merged: Record<string, string | number> = { ...headers };
        for (let at = 0; at < own.length; at += 2) merged[own[at] as string] = own[at + 1]!;
        writeHeadSafely(response, 200, merged);
      }
      response.end('done');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      for (const name of Object.keys(cases)) {
        const flat = await rawHead(port, `/flat/${name}`);
        expect(flat).toEqual(await rawHead(port, `/spread/${name}`));
        expect(flat.some((line) => line.startsWith('x-bad'))).toBe(false);
      }
      expect(await rawHead(port, '/flat/overridden')).toEqual(['200', 'x-request-id: req_2', 'content-type: application/json', 'vary: Origin', 'content-length: 4', 'Connection: keep-alive', 'Keep-Alive: timeout=5']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
