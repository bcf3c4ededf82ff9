import type { ChatChunk } from './types.js';

/**
 * A hub chunk's JSON text as `JSON.stringify(chunk)` would write it, split around the model
 * name: the chat surface puts the client's model name between the two halves instead of
 * serialising the chunk again (issue 18 item 3). Only chunks whose whole shape is known when
 * they are made get one (the chat stream's common events: chunk-render.ts in the
 * OpenAI-compatible provider); any other chunk is serialised as before.
 */
export interface ChunkText {
  /** `{"id":…,"object":"chat.completion.chunk","created":…,"model":` */
  head: string;
  /** `,"choices":[…]…}` */
  tail: string;
}

/**
 * A hub chunk that can carry its text. The text is a private field, not a key: a chunk's own
 * keys are what every surface and test sees (and what JSON.stringify writes), so the text must
 * not become one of them. (A WeakMap beside the chunks cost ~3 us a chunk in ephemeron upkeep.)
 * The members are assigned in the order every hub chunk has them; usage and system_fingerprint
 * are added after, when present, as on a literal.
 */
export class TextedChunk implements ChatChunk {
  id: string;
  object: 'chat.completion.chunk' = 'chat.completion.chunk';
  created: number;
  model: string;
  choices: ChatChunk['choices'];
  declare usage?: ChatChunk['usage'];
  declare system_fingerprint?: ChatChunk['system_fingerprint'];
  #text: ChunkText | undefined = undefined;

  constructor(id: string, created: number, model: string, choices: ChatChunk['choices']) {
    this.id = id;
    this.created = created;
    this.model = model;
    this.choices = choices;
  }

  static setText(chunk: TextedChunk, text: ChunkText): void {
    chunk.#text = text;
  }

  static textOf(chunk: ChatChunk): ChunkText | undefined {
    return #text in chunk ? (chunk as TextedChunk).#text : undefined;
  }

  static forget(chunk: ChatChunk): void {
    if (#text in chunk) (chunk as TextedChunk).#text = undefined;
  }
}

/** The chunk's text, while nothing has rewritten the chunk since it was made. */
export function chunkTextOf(chunk: ChatChunk): ChunkText | undefined {
  return TextedChunk.textOf(chunk);
}

/**
 * Whoever rewrites a chunk in place (output railguards) drops its text first, so the surface
 * serialises what the chunk has become.
 */
export function forgetChunkText(chunk: ChatChunk): void {
  TextedChunk.forget(chunk);
}

/**
 * A chunk as the chat surface sends it: the client's model name on it (`modelText` is that name
 * as JSON, made once per stream) and no usage (it goes out once, on the final chunk). From the
 * ready text when the chunk has one, else by serialising the chunk, rewritten in place (adapters
 * hand over fresh objects: no copy per event).
 */
export function chatChunkWireText(chunk: ChatChunk, model: string, modelText: string): string {
  chunk.model = model;
  const text = TextedChunk.textOf(chunk);
  if (text !== undefined) return text.head + modelText + text.tail;
  if (chunk.usage !== undefined) delete chunk.usage;
  return JSON.stringify(chunk);
}
