import { parseFile } from 'music-metadata';

/**
 * Seconds of audio in a file, read from its own headers by music-metadata (WAV, MP3 incl.
 * Xing/VBRI, MP4/M4A, WebM/Matroska); undefined when the container does not say.
 */
export async function audioDurationSeconds(filePath: string): Promise<number | undefined> {
  try {
    const metadata = await parseFile(filePath, { skipCovers: true, duration: false });
    const seconds = metadata.format.duration;
    return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
  } catch {
    return undefined;
  }
}
