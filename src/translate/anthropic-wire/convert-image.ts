import type { ImagePart } from '../chat/types.js';
import { invalidForAnthropic } from './invalid-for-anthropic.js';
import type { AnthropicImageBlock } from './types.js';

/** The image types the Messages API accepts (its docs list exactly these four). */
const MEDIA_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * A hub image part → an Anthropic image block: a base64 data URI becomes a `base64` source, an
 * http(s) URL a `url` source the provider fetches itself. `detail` has no Anthropic counterpart
 * (Claude picks the resolution from the image size) and is not sent.
 */
export function convertImage(part: ImagePart, field: string): AnthropicImageBlock {
  const url = part.image_url.url;
  if (url.startsWith('data:')) {
    const match = /^data:([^;,]+)((?:;[^;,]*)*),(.*)$/s.exec(url);
    if (match === null || !(match[2] ?? '').split(';').includes('base64')) {
      throw invalidForAnthropic(field, `The image at "${field}" is a data URI that is not base64-encoded; send data:<type>;base64,<data>.`);
    }
    const mediaType = (match[1] ?? '').toLowerCase();
    if (!MEDIA_TYPES.has(mediaType)) {
      throw invalidForAnthropic(field, `The image at "${field}" has type "${mediaType}"; this model's provider (kind anthropic) accepts ${[...MEDIA_TYPES].join(', ')}.`);
    }
    return { type: 'image', source: { type: 'base64', media_type: mediaType, data: match[3] ?? '' } };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw invalidForAnthropic(field, `The image at "${field}" must be an http(s) URL or a base64 data URI.`);
}
