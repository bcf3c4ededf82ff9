const BARS = '▁▂▃▄▅▆▇█';

/**
 * One character per value, scaled to the largest: zero is a blank and any non-zero value at least
 * the lowest bar, so an idle day is told apart from a quiet one at a glance.
 */
export function sparkline(values: readonly number[]): string {
  const max = Math.max(0, ...values);
  return values
    .map((value) => {
      if (value <= 0) return ' ';
      return BARS[Math.min(BARS.length - 1, Math.round((value / max) * (BARS.length - 1)))]!;
    })
    .join('');
}

/** A horizontal bar of up to `width` cells for value/max, eighths for the last cell. */
export function bar(value: number, max: number, width: number): string {
  if (max <= 0 || value <= 0) return '';
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  const partial = ' ▏▎▍▌▋▊▉';
  return '█'.repeat(Math.floor(eighths / 8)) + (eighths % 8 === 0 ? '' : partial[eighths % 8]!);
}
