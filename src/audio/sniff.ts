/** Audio containers igw accepts for transcription, recognised by their first bytes (not the file name). */
export type AudioFormat = 'mp3' | 'mp4' | 'wav' | 'webm';

/** Bytes of the file start that sniffAudioFormat needs. */
export const SNIFF_BYTES = 16;

/** Content type to label the upstream part with, per sniffed format. */
export const AUDIO_CONTENT_TYPES: Record<AudioFormat, string> = {
  mp3: 'audio/mpeg',
  mp4: 'audio/mp4',
  wav: 'audio/wav',
  webm: 'audio/webm',
};

/**
 * mp3/mpeg/mpga (an ID3v2 tag or an MPEG audio frame sync), mp4/m4a (an ISO-BMFF `ftyp` box),
 * wav (RIFF…WAVE) and webm (an EBML header). Anything else → null.
 */
export function sniffAudioFormat(head: Uint8Array): AudioFormat | null {
  const ascii = (offset: number, text: string) => head.length >= offset + text.length && [...text].every((char, index) => head[offset + index] === char.charCodeAt(0));
  if (ascii(0, 'ID3')) return 'mp3';
  // MPEG audio frame: 11 sync bits, a valid version (not 01) and layer (not 00; 00 is AAC ADTS).
  if (head.length >= 2 && head[0] === 0xff && (head[1]! & 0xe0) === 0xe0 && (head[1]! & 0x18) !== 0x08 && (head[1]! & 0x06) !== 0) return 'mp3';
  if (ascii(4, 'ftyp')) return 'mp4';
  if (ascii(0, 'RIFF') && ascii(8, 'WAVE')) return 'wav';
  if (head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'webm';
  return null;
}
