/**
 * Seconds of audio in a file, read from its own headers by music-metadata (WAV, MP3 incl.
 * Xing/VBRI, MP4/M4A, WebM/Matroska); undefined when the container does not say.
 */
export async function audioDurationSeconds(filePath: string): Promise<number | undefined> {
  try {
    // Loaded on first use: ~15 MB resident that a gateway without audio requests never needs (issue 18 item 3).
    const { parseFile } = await import('music-metadata');
    const metadata = await parseFile(filePath, { skipCovers: true, duration: false });
    const seconds = metadata.format.duration;
    return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
  } catch {
    return undefined;
  }
}
