import { describe, expect, it } from 'vitest';
import { layoutPageText, type LayoutItem } from '../../../src/documents/pdf-layout.js';

const item = (str: string, x: number, y: number, width = str.length * 6, fontSize = 12): LayoutItem => ({ str, x, y, width, fontSize });

describe('layoutPageText', () => {
  it.each<[string, LayoutItem[], string]>([
    ['items of a line joined, a space only where there is a gap', [item('Hel', 10, 700, 18), item('lo', 28, 700, 12), item('world', 46, 700)], 'Hello world'],
    ['lines in stream order, a blank line at a wide gap', [item('first line', 10, 700), item('second line', 10, 686), item('new paragraph', 10, 640)], 'first line\nsecond line\n\nnew paragraph'],
    [
      'line numbers written first go back onto their lines; a number on an empty line follows the line above',
      [item('1', 0, 700, 6), item('2', 0, 686, 6), item('3', 0, 672, 6), item('alpha text', 20, 700), item('gamma text', 20, 672)],
      '1 alpha text\n2\n3 gamma text',
    ],
    ['two columns stay in column order', [item('left one', 10, 700), item('left two', 10, 686), item('right one', 300, 700), item('right two', 300, 686)], 'left one\nleft two\nright one\nright two'],
    ['empty items ignored', [item('', 10, 700, 0), item('text', 10, 700)], 'text'],
    ['an empty page', [], ''],
  ])('%s', (_name, items, expected) => {
    expect(layoutPageText(items)).toBe(expected);
  });
});
