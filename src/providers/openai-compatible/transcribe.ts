import { classifyUpstreamStatus } from '../../errors/classify-upstream.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { MultipartPart, UpstreamHttpClient } from '../http-client.js';
import type { CallContext, TranscriptionRequest, TranscriptionResult, TranscriptionSegment } from '../types.js';

export interface TranscribeTarget {
  providerId: string;
  baseUrl: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Maps a thrown transport error to what the caller should see (the adapter's own rule). */
  failure(error: unknown, context: CallContext): unknown;
}

/**
 * Whisper-style `POST {base_url}/audio/transcriptions` (OpenAI, Groq, faster-whisper and
 * whisper.cpp servers). Always asks for verbose_json: igw renders json/text/srt/vtt itself from
 * the segments, and verbose_json carries the duration used for billing.
 */
export async function transcribeOpenAiCompatible(client: UpstreamHttpClient, target: TranscribeTarget, request: TranscriptionRequest, context: CallContext): Promise<TranscriptionResult> {
  const parts: MultipartPart[] = [
    { name: 'model', value: context.upstreamModel },
    { name: 'response_format', value: 'verbose_json' },
  ];
  if (request.language !== undefined) parts.push({ name: 'language', value: request.language });
  if (request.temperature !== undefined) parts.push({ name: 'temperature', value: String(request.temperature) });
  if (request.prompt !== undefined) parts.push({ name: 'prompt', value: request.prompt });
  for (const granularity of request.timestampGranularities ?? []) parts.push({ name: 'timestamp_granularities[]', value: granularity });
  parts.push({ name: 'file', filePath: request.filePath, filename: request.filename, contentType: request.contentType });

  let response;
  try {
    response = await client.postMultipart(`${target.baseUrl}/audio/transcriptions`, parts, { headers: target.headers, timeoutMs: target.timeoutMs, signal: context.signal });
  } catch (error) {
    throw target.failure(error, context);
  }
  if (response.status < 200 || response.status >= 300) {
    throw classifyUpstreamStatus(response.status, response.text, response.headers, target.providerId);
  }
  return normalizeTranscription(response.json, response.text, target.providerId);
}

/** verbose_json (or plain json) from any Whisper-compatible server → the hub result. */
export function normalizeTranscription(json: unknown, text: string, providerId: string): TranscriptionResult {
  if (json === null || typeof json !== 'object' || typeof (json as { text?: unknown }).text !== 'string') {
    throw new GatewayError('INFERENCE_3105', `Provider "${providerId}" answered the transcription without a "text" field.`, { provider: providerId }, {
      cause: { body: text.slice(0, 16_384) },
    });
  }
  const body = json as Record<string, unknown>;
  const usage = (body['usage'] ?? {}) as Record<string, unknown>;
  const duration = finiteNumber(body['duration']) ?? (usage['type'] === 'duration' ? finiteNumber(usage['seconds']) : undefined) ?? finiteNumber(usage['prompt_audio_seconds']);
  const segments = Array.isArray(body['segments'])
    ? (body['segments'] as Array<Record<string, unknown>>).map((segment, index): TranscriptionSegment => ({
        ...segment,
        id: typeof segment['id'] === 'number' ? segment['id'] : index,
        start: finiteNumber(segment['start']) ?? 0,
        end: finiteNumber(segment['end']) ?? 0,
        text: typeof segment['text'] === 'string' ? segment['text'] : '',
      }))
    : undefined;
  return {
    text: body['text'] as string,
    language: typeof body['language'] === 'string' ? body['language'] : null,
    duration,
    segments,
    words: Array.isArray(body['words']) ? (body['words'] as Array<Record<string, unknown>>) : undefined,
  };
}

function finiteNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
