import type { StaticChunking } from './records.js';

/** A chunk produced by the chunker: its text and its token count. */
export interface TextChunk {
  text: string;
  tokens: number;
}

export interface FetchedDocument {
  bytes: Buffer;
  filename: string;
  mimeType?: string | undefined;
  finalUrl: string;
}

/**
 * What ingestion needs from the document layer (parsing, chunking, URL fetching) and the Files
 * API. Injected so the pipeline does not care where each piece lives.
 */
export interface DocumentTools {
  extract(input: { bytes: Buffer; filename: string; mimeType?: string | undefined }): Promise<{ text: string }>;
  chunk(text: string, strategy: StaticChunking): TextChunk[];
  fetchUrl(url: string, signal: AbortSignal): Promise<FetchedDocument>;
}
