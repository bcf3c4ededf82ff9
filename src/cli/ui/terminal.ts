/**
 * Whether a command may draw an interactive ink view: only on a real terminal, never when the
 * caller asked for JSON, and not under `NO_COLOR`-style plain output requests (`--no-tui`).
 * Everything else prints one plain line per change, so scripts and CI logs stay readable.
 */
export function interactive(stream: NodeJS.WriteStream, options: { json?: boolean; noTui?: boolean } = {}): boolean {
  return stream.isTTY === true && options.json !== true && options.noTui !== true && process.env.TERM !== 'dumb';
}

/** NO_COLOR (https://no-color.org): any non-empty value turns colour off. */
export function colorEnabled(): boolean {
  return (process.env.NO_COLOR ?? '') === '' && process.env.FORCE_COLOR !== '0';
}
