import { audioDurationSeconds } from '../audio/duration.js';
import { AUDIO_CONTENT_TYPES, SNIFF_BYTES, sniffAudioFormat } from '../audio/sniff.js';
import { renderSrt, renderVtt } from '../audio/subtitles.js';
import { GatewayError } from '../errors/gateway-error.js';
import { inferenceScope, responseHeaders, type RequestCall } from '../http/request-call.js';
import { sendJson, sendText } from '../http/respond.js';
import { callWithFallback, meterCall, resolveTarget, routesServing, type InferenceScope, type Metering } from '../inference/index.js';
import type { TranscriptionRequest } from '../providers/types.js';
import { receiveUpload, type Upload, type UploadedFile } from './shared/multipart-upload.js';

/** Spec limit: "Transcription file size 25 MB" (VALIDATION_4016). */
export const MAX_TRANSCRIPTION_FILE_BYTES = 25 * 1024 * 1024;

const RESPONSE_FORMATS = ['json', 'text', 'srt', 'vtt', 'verbose_json'] as const;
type ResponseFormat = (typeof RESPONSE_FORMATS)[number];
const KNOWN_FIELDS = new Set(['model', 'language', 'temperature', 'response_format', 'prompt', 'timestamp_granularities[]', 'timestamp_granularities']);
const GRANULARITIES = new Set(['word', 'segment']);

interface TranscriptionParams {
  model: string;
  file: UploadedFile;
  responseFormat: ResponseFormat;
  upstream: TranscriptionRequest;
}

/**
 * POST /v1/audio/transcriptions (spec "Transcription result"). The upload is streamed to a temp
 * file under <dataDir>/tmp and removed afterwards whatever happens; upstreams are always asked
 * for verbose_json and igw renders the requested format. Plain-body formats (text, srt, vtt)
 * carry the billing in x-igw-billing-* headers (the JSON formats also have it in the body).
 */
export async function handleAudioTranscriptions(call: RequestCall): Promise<void> {
  const upload = await receiveUpload(call, {
    fileField: 'file',
    maxFileBytes: MAX_TRANSCRIPTION_FILE_BYTES,
    tooLargeCode: 'VALIDATION_4016',
    tooLargeMessage: `The audio file is larger than 25 MB (${MAX_TRANSCRIPTION_FILE_BYTES} bytes); split it or compress it.`,
    headBytes: SNIFF_BYTES,
  });
  let send: () => void;
  try {
    send = await transcribe(call, inferenceScope(call), parseParams(upload));
  } finally {
    // Before answering: once the client has its answer, nothing of the upload is left on disk.
    await upload.cleanup();
  }
  send();
}

function parseParams(upload: Upload): TranscriptionParams {
  const { fields } = upload;
  for (const name of fields.keys()) {
    if (!KNOWN_FIELDS.has(name)) throw new GatewayError('VALIDATION_4005', `Unknown parameter "${name}".`, { field: name });
  }
  const single = (name: string): string | undefined => {
    const values = fields.get(name);
    if (values !== undefined && values.length > 1) throw new GatewayError('VALIDATION_4005', `"${name}" was sent ${values.length} times; send it once.`, { field: name });
    return values?.[0];
  };
  const model = single('model');
  if (model === undefined || model.trim() === '') throw new GatewayError('VALIDATION_4002', 'Missing required field "model".', { field: 'model' });
  const file = upload.file;
  if (file === undefined) throw new GatewayError('VALIDATION_4002', 'Missing required field "file" (the audio, as a multipart file part).', { field: 'file' });
  if (file.size === 0) throw new GatewayError('VALIDATION_4005', 'The audio file is empty.', { field: 'file' });
  const format = sniffAudioFormat(file.head);
  if (format === null) {
    throw new GatewayError('VALIDATION_4005', 'The file is not a supported audio format (mp3, mp4, mpeg, mpga, m4a, wav, webm); the format is checked by content, not by name.', { field: 'file' });
  }

  const upstream: TranscriptionRequest = { filePath: file.path, filename: file.filename, contentType: AUDIO_CONTENT_TYPES[format] };
  const language = single('language');
  if (language !== undefined) {
    if (!/^[a-z]{2}$/i.test(language)) throw new GatewayError('VALIDATION_4005', 'language must be an ISO-639-1 code such as "en" or "fr".', { field: 'language' });
    upstream.language = language.toLowerCase();
  }
  const temperatureText = single('temperature');
  if (temperatureText !== undefined) {
    const temperature = Number(temperatureText);
    if (temperatureText.trim() === '' || !Number.isFinite(temperature) || temperature < 0 || temperature > 1) {
      throw new GatewayError('VALIDATION_4005', 'temperature must be a number between 0 and 1.', { field: 'temperature' });
    }
    upstream.temperature = temperature;
  }
  const prompt = single('prompt');
  if (prompt !== undefined) upstream.prompt = prompt;
  const granularities = [...(fields.get('timestamp_granularities[]') ?? []), ...(fields.get('timestamp_granularities') ?? [])];
  for (const granularity of granularities) {
    if (!GRANULARITIES.has(granularity)) throw new GatewayError('VALIDATION_4005', 'timestamp_granularities[] takes "word" and/or "segment".', { field: 'timestamp_granularities[]' });
  }
  if (granularities.length > 0) upstream.timestampGranularities = granularities;
  const responseFormat = single('response_format') ?? 'json';
  if (!(RESPONSE_FORMATS as readonly string[]).includes(responseFormat)) {
    throw new GatewayError('VALIDATION_4005', `response_format must be one of ${RESPONSE_FORMATS.join(', ')}.`, { field: 'response_format' });
  }
  return { model, file, responseFormat: responseFormat as ResponseFormat, upstream };
}

/** Pipeline (resolve, call with fallback over the routes that transcribe, meter); returns the function that writes the answer. */
async function transcribe(call: RequestCall, scope: InferenceScope, params: TranscriptionParams): Promise<() => void> {
  const target = resolveTarget(scope, params.model, ['audio']);
  const serving = routesServing(scope, target.candidates, 'transcribe', 'audio transcriptions');
  const { result, candidate } = await callWithFallback(scope, serving, target.hints, ({ adapter, context }) => adapter.transcribe!(params.upstream, context));

  // Billing per audio minute: the upstream's duration, else the file's own header.
  const duration = result.duration ?? (await audioDurationSeconds(params.file.path)) ?? 0;
  const metering = meterCall(scope, candidate, { inputTokens: 0, outputTokens: 0, cachedTokens: 0, images: 0, audioMinutes: duration / 60 });
  const headers = responseHeaders(call, billingHeaders(metering, duration));
  const language = result.language ?? params.upstream.language ?? null;
  const segments = result.segments ?? (result.text === '' ? [] : [{ id: 0, start: 0, end: duration, text: result.text }]);

  switch (params.responseFormat) {
    case 'text':
      return () => sendText(call.response, 200, result.text, 'text/plain; charset=utf-8', headers);
    case 'srt':
      return () => sendText(call.response, 200, renderSrt(segments), 'application/x-subrip; charset=utf-8', headers);
    case 'vtt':
      return () => sendText(call.response, 200, renderVtt(segments), 'text/vtt; charset=utf-8', headers);
    case 'verbose_json': {
      const body = {
        task: 'transcribe',
        language,
        duration,
        text: result.text,
        segments,
        ...(result.words === undefined ? {} : { words: result.words }),
        environment_impact: metering.environment_impact,
        billing_cost: metering.billing_cost,
      };
      return () => sendJson(call.response, 200, body, headers);
    }
    case 'json':
      return () => sendJson(call.response, 200, { text: result.text, language, duration, environment_impact: metering.environment_impact, billing_cost: metering.billing_cost }, headers);
  }
}

/** The billing of the call as headers, so plain-body formats (text, srt, vtt) carry it too. */
function billingHeaders(metering: Metering, durationSeconds: number): Record<string, string> {
  return {
    'x-igw-audio-seconds': String(Math.round(durationSeconds * 1000) / 1000),
    'x-igw-billing-credits': metering.billing_cost.credits,
    'x-igw-billing-energy': metering.billing_cost.energy,
    'x-igw-billing-paid-with': metering.billing_cost.paid_with,
    'x-igw-energy-kwh': String(metering.environment_impact.energy_kwh),
    'x-igw-carbon-g-co2': String(metering.environment_impact.carbon_g_co2),
  };
}
