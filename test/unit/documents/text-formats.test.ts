import { describe, expect, it } from 'vitest';
import { DocumentError, extractDocument } from '../../../src/documents/extract.js';
import { readDocument } from './fixtures.js';

const text = (value: string): Buffer => Buffer.from(value, 'utf8');

async function failure(promise: Promise<unknown>): Promise<DocumentError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(DocumentError);
  return error as DocumentError;
}

describe('extractDocument: text, Markdown, code', () => {
  it.each<[string, Buffer, string, string]>([
    ['UTF-8', text('héllo wörld'), 'a.txt', 'héllo wörld'],
    ['UTF-8 with BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), text('bom text')]), 'a.txt', 'bom text'],
    ['UTF-16 LE with BOM', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('wide text', 'utf16le')]), 'a.txt', 'wide text'],
    ['Windows-1252 (not valid UTF-8)', Buffer.from([0x93, 0x63, 0x61, 0x66, 0xe9, 0x94]), 'a.txt', '\u201Ccafé\u201D'],
    ['CRLF line breaks', text('one\r\ntwo\rthree\n'), 'a.txt', 'one\ntwo\nthree'],
  ])('decodes %s', async (_name, bytes, filename, expected) => {
    expect(await extractDocument({ bytes, filename })).toEqual({ text: expected, format: 'text' });
  });

  it.each<[string, Buffer, string, string]>([
    ['a declared ISO-8859-2', Buffer.from([0x7a, 0xb1, 0xe6]), 'text/plain; charset=iso-8859-2', 'ząć'],
    ['a declared Shift_JIS', Buffer.from([0x82, 0xa0, 0x82, 0xa2]), 'text/plain; charset="Shift_JIS"', 'あい'],
    ['a declared UTF-16 without BOM', Buffer.from('wide', 'utf16le'), 'text/plain; charset=utf-16le', 'wide'],
    ['a declared latin1 (decoded as Windows-1252, like browsers)', Buffer.from([0x93, 0x78, 0x94]), 'text/plain; charset=ISO-8859-1', '\u201Cx\u201D'],
    ['an unknown charset label (ignored)', Buffer.from('plain'), 'text/plain; charset=x-unknown', 'plain'],
  ])('honours %s', async (_name, bytes, mimeType, expected) => {
    expect((await extractDocument({ bytes, filename: 'a.txt', mimeType })).text).toBe(expected);
  });

  it('keeps source code as is, indentation included', async () => {
    const source = 'def add(a, b):\n    """Sum."""\n    return a + b\n';
    expect(await extractDocument({ bytes: text(source), filename: 'calc.py' })).toEqual({ text: source.trim(), format: 'code' });
  });

  it.each<[string, string, string | undefined]>([
    ['a level-1 heading', 'intro\n\n# The **Title**\n\n## Section', 'The Title'],
    ['front matter', '---\ntitle: "Front Title"\n---\n# Other', 'Front Title'],
    ['a # inside a code fence is not a heading', '```sh\n# comment\n```\n\ntext', undefined],
  ])('takes the Markdown title from %s', async (_name, source, title) => {
    const document = await extractDocument({ bytes: text(source), filename: 'doc.md' });
    expect(document.format).toBe('markdown');
    expect(document.title).toBe(title);
    expect(document.text).toBe(source.trim());
  });

  it.each<[string, Buffer, string, 'unsupported_file' | 'invalid_file']>([
    ['an empty file', Buffer.alloc(0), 'empty.txt', 'invalid_file'],
    ['a blank file', text(' \n\n\t'), 'blank.md', 'invalid_file'],
    ['binary bytes', Buffer.from([0x00, 0x01, 0x02, 0x03, 0xff]), 'blob.txt', 'unsupported_file'],
  ])('refuses %s', async (_name, bytes, filename, code) => {
    const error = await failure(extractDocument({ bytes, filename }));
    expect(error.code).toBe(code);
    expect(error.message).toContain(filename);
  });
});

describe('extractDocument: JSON', () => {
  it('flattens values to path: value lines, records separated by blank lines', async () => {
    const source = JSON.stringify({ title: 'Solar', planets: [{ name: 'Earth', moons: ['Moon'] }, { name: 'Venus', moons: [], note: null, extra: '' }], 'a.b': 1 });
    const document = await extractDocument({ bytes: text(source), filename: 'p.json' });
    expect(document).toEqual({
      format: 'json',
      text: 'title: Solar\n\nplanets[0].name: Earth\nplanets[0].moons[0]: Moon\n\nplanets[1].name: Venus\n["a.b"]: 1',
    });
  });

  it('reads JSON Lines', async () => {
    const document = await extractDocument({ bytes: text('{"q":"a"}\n{"q":"b"}\n'), filename: 'rows.jsonl' });
    expect(document.text).toBe('[0].q: a\n\n[1].q: b');
  });

  it('refuses invalid JSON naming the file', async () => {
    const error = await failure(extractDocument({ bytes: text('{"a": [1, 2'), filename: 'broken.json' }));
    expect(error.code).toBe('invalid_file');
    expect(error.message).toMatch(/"broken\.json" is not valid JSON/);
  });
});

describe('extractDocument: CSV', () => {
  it.each<[string, string, string, string]>([
    ['comma, header on each row', 'a.csv', 'name,city\nAda,London\nLin,"Paris, FR"\n', 'name: Ada; city: London\nname: Lin; city: Paris, FR'],
    ['semicolon exports', 'b.csv', 'name;amount\nAda;1,5\nLin;2,0', 'name: Ada; amount: 1,5\nname: Lin; amount: 2,0'],
    ['tab-separated', 'c.tsv', 'k\tv\nx\t1', 'k: x; v: 1'],
    ['blank header cells and empty values', 'd.csv', ',v\n1,\n2,b', 'column 1: 1\ncolumn 1: 2; v: b'],
    ['quoted newlines', 'e.csv', 'q,a\n"line one\nline two",yes', 'q: line one line two; a: yes'],
    ['ragged rows', 'f.csv', 'a,b\n1,2,3\n4', 'a: 1; b: 2; column 3: 3\na: 4'],
  ])('%s', async (_name, filename, source, expected) => {
    expect(await extractDocument({ bytes: text(source), filename })).toEqual({ text: expected, format: 'csv' });
  });
});

describe('sample documents: text formats', () => {

  it('Markdown README keeps its headings and code', async () => {
    const bytes = readDocument('markdown/vercel-ai-README.md');
    const document = await extractDocument({ bytes, filename: 'vercel-ai-README.md' });
    expect(document.format).toBe('markdown');
    expect(document.text).toBe(bytes.toString('utf8').trim());
    expect(document.title).toBeTruthy();
    expect(document.text).toContain('```');
  });

  it('sample-small.csv: every row with its header', async () => {
    const document = await extractDocument({ bytes: readDocument('csv/sample-small.csv'), filename: 'sample-small.csv', mimeType: 'text/csv' });
    const lines = document.text.split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toBe('month: January; revenue: 12500; expenses: 8200; profit: 4300');
    expect(lines[5]).toBe('month: June; revenue: 17800; expenses: 10200; profit: 7600');
  });

  it('lichess-puzzles-200.csv: 200 rows, FEN strings and URLs intact', async () => {
    const document = await extractDocument({ bytes: readDocument('csv/lichess-puzzles-200.csv'), filename: 'lichess-puzzles-200.csv' });
    const lines = document.text.split('\n');
    expect(lines).toHaveLength(200);
    expect(lines[0]).toBe(
      'Unnamed: 0: 2405542; PuzzleId: vkLqA; FEN: r1b5/1kp3Q1/4R1p1/p2p1qN1/5p2/2P5/P4PPP/6K1 w - - 1 33; Moves: e6e7 f5b1 e7e1 b1e1; Rating: 1095; RatingDeviation: 200; Popularity: 100; NbPlays: 14; Themes: endgame mate mateIn2 short; GameUrl: https://lichess.org/f7VMEmKq#65',
    );
    expect(lines.every((line) => line.startsWith('Unnamed: 0: ') && line.includes('; GameUrl: https://lichess.org/'))).toBe(true);
  });

  it('planets.json: every planet and moon findable with its path', async () => {
    const document = await extractDocument({ bytes: readDocument('json/planets.json'), filename: 'planets.json' });
    expect(document.text).toMatch(/^description: Planets \(including dwarf planets/);
    expect(document.text).toContain('planets[2].name: Earth\nplanets[2].moons[0]: Moon');
    const source = JSON.parse(readDocument('json/planets.json').toString('utf8')) as { planets: Array<{ name: string; moons: string[] }> };
    for (const planet of source.planets) {
      expect(document.text).toContain(`.name: ${planet.name}`);
      for (const moon of planet.moons) expect(document.text).toContain(`: ${moon}`);
    }
  });

  it('elements.json: 118 records, numbers kept, empty values dropped', async () => {
    const document = await extractDocument({ bytes: readDocument('json/elements.json'), filename: 'elements.json' });
    const records = document.text.split('\n\n');
    expect(records).toHaveLength(118);
    expect(records[0]).toContain('elements[0].name: Hydrogen');
    expect(records[0]).toContain('elements[0].atomic_number: 1');
    expect(records[0]).not.toContain('most_stable_crystal');
    expect(records[117]).toContain('elements[117].atomic_number: 118');
  });
});
