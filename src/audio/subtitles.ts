/** Subtitle files rendered from transcription segments (the upstream answers verbose_json). */

export interface TimedText {
  start: number;
  end: number;
  text: string;
}

/** `HH:MM:SS,mmm` (SubRip) or `HH:MM:SS.mmm` (WebVTT). */
export function formatTimestamp(seconds: number, separator: ',' | '.'): string {
  const totalMs = Math.max(0, Math.round(seconds * 1000));
  const ms = totalMs % 1000;
  const totalSeconds = Math.floor(totalMs / 1000);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(Math.floor(totalSeconds / 3600))}:${pad(Math.floor(totalSeconds / 60) % 60)}:${pad(totalSeconds % 60)}${separator}${pad(ms, 3)}`;
}

/** Cue text: trimmed, blank lines removed (a blank line would end the cue). */
function cueText(text: string): string {
  return text
    .trim()
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .join('\n');
}

export function renderSrt(segments: readonly TimedText[]): string {
  return segments.map((segment, index) => `${index + 1}\n${formatTimestamp(segment.start, ',')} --> ${formatTimestamp(segment.end, ',')}\n${cueText(segment.text)}\n`).join('\n');
}

export function renderVtt(segments: readonly TimedText[]): string {
  const cues = segments.map((segment) => `${formatTimestamp(segment.start, '.')} --> ${formatTimestamp(segment.end, '.')}\n${cueText(segment.text).replaceAll('-->', '->')}\n`);
  return ['WEBVTT\n', ...cues].join('\n');
}
