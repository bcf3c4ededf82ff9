import { describe, expect, it } from 'vitest';
import { convertDocument } from '../../../src/documents/convert/convert-document.js';

const md = async (text: string, filename: string) => (await convertDocument({ bytes: Buffer.from(text), filename }, 'markdown')).pages.join('\n\n');

describe('convertDocument to Markdown', () => {
  it.each([
    ['HTML headings, emphasis and links', '<html><body><h1>Title</h1><p>Some <em>soft</em> and <strong>bold</strong> <a href="https://x.test/a">link</a>.</p></body></html>', 'a.html', '# Title\n\nSome _soft_ and **bold** [link](https://x.test/a).'],
    ['bullets with one space, ordered lists keep their start', '<html><body><ul><li>one</li><li>two</li></ul><ol start="3"><li>three</li><li>four</li></ol></body></html>', 'a.html', '- one\n- two\n\n3. three\n4. four'],
    ['inline data: images keep only their alt text', '<html><body><p>see <img alt="chart" src="data:image/png;base64,AAAA"></p></body></html>', 'a.html', 'see chart'],
    ['scripts and styles are not text', '<html><head><style>p{}</style></head><body><script>alert(1)</script><p>kept</p></body></html>', 'a.html', 'kept'],
    ['CSV cells with pipes are escaped, ragged rows padded', 'a,b\n"x|y",2\n3', 't.csv', '| a | b |\n| --- | --- |\n| x\\|y | 2 |\n| 3 |  |'],
    ['JSON is pretty-printed in a json fence', '{"a":[1,2]}', 'd.json', '```json\n{\n  "a": [\n    1,\n    2\n  ]\n}\n```'],
    ['code gets a fence longer than any backtick run inside', 'const s = "```";\n', 'x.ts', '````typescript\nconst s = "```";\n````'],
    ['Markdown stays as written', '# Hi\n\n- a\n', 'r.md', '# Hi\n\n- a'],
  ])('%s', async (_label, source, filename, expected) => {
    expect(await md(source, filename)).toBe(expected);
  });

  it('text format of HTML is the indexing text, not Markdown', async () => {
    const converted = await convertDocument({ bytes: Buffer.from('<html><body><h2>Head</h2><p>Body</p></body></html>'), filename: 'a.html' }, 'text');
    expect(converted.pages.join('')).not.toContain('#');
    expect(converted.pages.join('')).toContain('Head');
  });
});
