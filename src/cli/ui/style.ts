import { useColor } from '../output.js';

/**
 * Minimal ANSI styling for plain (non-ink) output: only on a TTY and never under NO_COLOR, so
 * piped output and logs stay free of escape codes.
 */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
}

const plain: Style = { bold: (text) => text, dim: (text) => text, red: (text) => text, green: (text) => text };

const ansi = (open: number, close: number) => (text: string) => `\u001B[${open}m${text}\u001B[${close}m`;
const colored: Style = { bold: ansi(1, 22), dim: ansi(2, 22), red: ansi(31, 39), green: ansi(32, 39) };

export function styleFor(stream: NodeJS.WriteStream): Style {
  return useColor(stream) ? colored : plain;
}

export const plainStyle = plain;
