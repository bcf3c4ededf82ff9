import type { UpstreamChatChunk } from './wire.js';

/**
 * The chat stream's fast reader (issue 18 item 3): the `data:` text of a common upstream event
 * — one choice whose delta is text (role, content, reasoning, refusal) and/or a finish reason,
 * no usage, tool calls or logprobs — read straight into the few fields ChunkNormalizer uses,
 * without JSON.parse building the whole object (ids, model names and every ignored field, each
 * event). Anything else returns undefined and the event takes the JSON.parse + schema path.
 *
 * The scanner accepts only valid JSON, and for what it accepts it hands over exactly what that
 * path would hand the normaliser (the differential tests in test/unit/providers run both on every
 * recorded stream and on generated ones, and compare the bytes the client gets):
 * - keys in any order, JSON whitespace between tokens; a known key seen twice → fallback
 *   (JSON.parse keeps the last one);
 * - strings decoded as JSON.parse does (JSON.parse itself when they hold an escape);
 * - types the schema would refuse or coerce (a numeric `id`, `content` as parts, a null `index`,
 *   a non-null `usage`/`error`/`x_groq`/`logprobs`/`tool_calls`) → fallback;
 * - unknown keys with a scalar value (`service_tier`, `obfuscation`, `token_ids: null`) are
 *   skipped, as the schema strips them; an unknown object or array value (`sla_metrics`) → fallback.
 * Module-level state: one scan runs at a time (it is synchronous) and allocates only the result.
 */

const WS = /[ \t\n\r]*/y;
/** Any JSON string (escapes checked, raw control characters refused). */
const STRING = /"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
/** An object key without escapes: an escaped key could spell a known one, so it falls back. */
const KEY = /"[^"\\\x00-\x1f]*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
/** A choice index the schema takes as it is (a non-negative integer, no exponent or fraction). */
const INDEX = /0|[1-9]\d{0,8}/y;
const LITERAL = /true|false|null/y;

let text = '';
let at = 0;
/** Where the last scan found the delta's content string (start at its opening quote, end after its closing one); -1: none. */
let contentStart = -1;
let contentEnd = -1;

/** Not a plain chunk: thrown inside the scan, caught once at its top (no result objects on failure paths). */
const MISMATCH = Symbol('not a plain chunk');

function skipWs(): void {
  // Compact JSON has no whitespace: one character test before reaching for the regex.
  const code = text.charCodeAt(at);
  if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return;
  WS.lastIndex = at;
  WS.test(text);
  at = WS.lastIndex;
}

/** The token `pattern` matches here (test + slice: no match array). */
function take(pattern: RegExp): string {
  pattern.lastIndex = at;
  if (!pattern.test(text)) throw MISMATCH;
  const start = at;
  at = pattern.lastIndex;
  return text.slice(start, at);
}

function expect(char: string): void {
  if (text[at] !== char) throw MISMATCH;
  at += 1;
}

/** `null` → true (consumed); anything else → false (nothing consumed). */
function nullHere(): boolean {
  if (text.startsWith('null', at)) {
    at += 4;
    return true;
  }
  return false;
}

function decodeString(raw: string): string {
  return raw.indexOf('\\') === -1 ? raw.slice(1, -1) : (JSON.parse(raw) as string);
}

/** A string or null (both types the schema keeps as they are). */
function stringOrNull(): string | null {
  return nullHere() ? null : decodeString(take(STRING));
}

/** A string, number, true, false or null whose value nobody reads. */
function skipScalar(): void {
  const char = text[at];
  if (char === '"') take(STRING);
  else if (char === 't' || char === 'f' || char === 'n') take(LITERAL);
  else take(NUMBER);
}

/** After a member: `,` (true: another member follows) or `}` (false: the object ended). */
function nextMember(): boolean {
  skipWs();
  if (text[at] === ',') {
    at += 1;
    skipWs();
    return true;
  }
  expect('}');
  return false;
}

function key(): string {
  const quoted = take(KEY);
  skipWs();
  expect(':');
  skipWs();
  return quoted.slice(1, -1);
}

/** Opens an object: `{`; false when it is empty (`{}`). */
function openObject(): boolean {
  expect('{');
  skipWs();
  if (text[at] === '}') {
    at += 1;
    return false;
  }
  return true;
}

/** Marks a known key as seen; a second one falls back. */
function once(seen: number, bit: number): number {
  if ((seen & bit) !== 0) throw MISMATCH;
  return seen | bit;
}

type Delta = NonNullable<NonNullable<UpstreamChatChunk['choices']>[number]['delta']>;

/** The delta's text members (string or null, as the schema keeps them) and each one's bit in `seen`. */
const DELTA_TEXTS: ReadonlyMap<string, number> = new Map([
  ['role', 1],
  ['content', 2],
  ['reasoning_content', 4],
  ['reasoning', 8],
  ['refusal', 16],
]);
const TOOL_CALLS_SEEN = 32;

function delta(): Delta {
  const fields: Record<string, string | null> = {};
  if (nullHere() || !openObject()) return fields;
  let seen = 0;
  do {
    const name = key();
    const bit = DELTA_TEXTS.get(name);
    if (bit !== undefined) {
      seen = once(seen, bit);
      const start = at;
      fields[name] = stringOrNull();
      if (name === 'content' && fields[name] !== null) {
        contentStart = start;
        contentEnd = at;
      }
    } else if (name === 'tool_calls') {
      // Tool calls are the normaliser's to even out (indexes, ids): only a null one is plain.
      seen = once(seen, TOOL_CALLS_SEEN);
      if (!nullHere()) throw MISMATCH;
    } else {
      skipScalar();
    }
  } while (nextMember());
  return fields;
}

type Choice = NonNullable<UpstreamChatChunk['choices']>[number];

function choice(): Choice {
  const fields: Choice = {};
  if (!openObject()) return fields;
  let seen = 0;
  do {
    const name = key();
    switch (name) {
      case 'index':
        seen = once(seen, 1);
        fields.index = Number(take(INDEX));
        break;
      case 'delta':
        seen = once(seen, 2);
        fields.delta = delta();
        break;
      case 'finish_reason':
        seen = once(seen, 4);
        fields.finish_reason = stringOrNull();
        break;
      case 'logprobs':
        seen = once(seen, 8);
        if (!nullHere()) throw MISMATCH;
        break;
      default:
        skipScalar();
    }
  } while (nextMember());
  return fields;
}

/** `[` one choice `]`: several choices (n > 1) or none (a usage chunk) fall back. */
function oneChoice(): Choice[] {
  expect('[');
  skipWs();
  const only = choice();
  skipWs();
  expect(']');
  return [only];
}

function chunk(): UpstreamChatChunk {
  const fields: UpstreamChatChunk = {};
  if (!openObject()) throw MISMATCH;
  let seen = 0;
  do {
    const name = key();
    switch (name) {
      case 'id':
        seen = once(seen, 1);
        fields.id = stringOrNull();
        break;
      case 'model':
        seen = once(seen, 2);
        fields.model = stringOrNull();
        break;
      case 'system_fingerprint':
        seen = once(seen, 4);
        fields.system_fingerprint = stringOrNull();
        break;
      case 'object':
        seen = once(seen, 8);
        stringOrNull();
        break;
      case 'created': {
        seen = once(seen, 16);
        if (nullHere()) break;
        const created = Number(take(NUMBER));
        // 1e999 is Infinity, which the schema reads as absent: left to it.
        if (!Number.isFinite(created)) throw MISMATCH;
        fields.created = created;
        break;
      }
      case 'choices':
        seen = once(seen, 32);
        fields.choices = oneChoice();
        break;
      case 'usage':
      case 'x_groq':
      case 'error':
        // Usage is the normaliser's to judge (held, final, flushed), an error is classified: both
        // take the full path. null is what most servers send on every other event.
        seen = once(seen, name === 'usage' ? 64 : name === 'x_groq' ? 128 : 256);
        if (!nullHere()) throw MISMATCH;
        break;
      default:
        skipScalar();
    }
  } while (nextMember());
  // Without choices the event is a usage or keep-alive chunk: the full path's business.
  if ((seen & 32) === 0) throw MISMATCH;
  return fields;
}

/**
 * The fields ChunkNormalizer reads from one event's `data:` text, or undefined when the event
 * is not a plain one-choice text chunk (then JSON.parse and the schema judge it, errors included).
 */
export function scanPlainChunk(data: string): UpstreamChatChunk | undefined {
  text = data;
  at = 0;
  contentStart = -1;
  contentEnd = -1;
  try {
    skipWs();
    const fields = chunk();
    skipWs();
    return at === text.length ? fields : undefined;
  } catch (error) {
    if (error === MISMATCH) return undefined;
    throw error;
  } finally {
    text = '';
  }
}

/**
 * One stream's scanner. Text events of a stream differ in their content string and nothing
 * else (same id, model, created, fingerprint, key order, spacing), so the last scanned event
 * with a content string is kept as a template: an event that is the template's text before
 * that string, one complete JSON string, and the template's text after it is the same JSON
 * with another content — the same tokens around one string token — and is read with two
 * prefix/suffix compares and one string match instead of a scan. Anything else is scanned.
 */
export class ChunkScanner {
  private prefix = '';
  private suffix = '';
  private template: UpstreamChatChunk | undefined;

  scan(data: string): UpstreamChatChunk | undefined {
    const template = this.template;
    if (template !== undefined) {
      const start = this.prefix.length;
      const end = data.length - this.suffix.length;
      if (end > start && data.startsWith(this.prefix) && data.endsWith(this.suffix)) {
        STRING.lastIndex = start;
        if (STRING.test(data) && STRING.lastIndex === end) return withContent(template, decodeString(data.slice(start, end)));
      }
    }
    const scanned = scanPlainChunk(data);
    if (scanned !== undefined && contentStart !== -1) {
      this.prefix = data.slice(0, contentStart);
      this.suffix = data.slice(contentEnd);
      this.template = scanned;
    }
    return scanned;
  }
}

/** The template's fields with another content (fresh objects: the normaliser gets its own). */
function withContent(template: UpstreamChatChunk, content: string): UpstreamChatChunk {
  const choice = template.choices![0]!;
  return {
    id: template.id,
    created: template.created,
    model: template.model,
    system_fingerprint: template.system_fingerprint,
    choices: [{ index: choice.index, delta: { ...choice.delta, content }, finish_reason: choice.finish_reason }],
  };
}
