/**
 * Best-effort example strings for the simple regular expressions JSON Schema `pattern`s use in
 * practice (`^[A-Z]{3}-\d{4}$`, `^(foo|bar)_[a-z]+$`, …). It understands literals, escapes,
 * classes, groups with alternation and the usual quantifiers; anything else returns undefined
 * and the caller falls back to its seed text. Every result is checked against the real RegExp,
 * so a wrong guess is never returned.
 */

type Node =
  | { kind: 'chars'; pick: string }
  | { kind: 'group'; alternatives: Node[][] }
  | { kind: 'repeat'; node: Node; min: number; max: number };

class Unsupported extends Error {}

/**
 * A string matching `pattern` (searched, as JSON Schema does: unanchored unless `^…$`) whose
 * length in code points lies within the bounds, or undefined.
 */
export function exampleForPattern(pattern: string, minLength = 0, maxLength = Infinity): string | undefined {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
  let tree: Node[][];
  try {
    tree = new PatternParser(pattern).parse();
  } catch {
    return undefined;
  }
  // Open-ended repeats are stretched step by step until the result is long enough (padding
  // afterwards would break `$` anchors); the shortest expansion comes first.
  const attempts = Math.min(Math.max(minLength, 0), MAX_STRETCH);
  for (let stretch = 0; stretch <= attempts; stretch++) {
    const candidate = renderAlternative(tree[0] ?? [], stretch);
    const length = Array.from(candidate).length;
    if (length > maxLength) return undefined;
    if (length >= minLength && regex.test(candidate)) return candidate;
  }
  return undefined;
}

const MAX_STRETCH = 256;

function renderAlternative(nodes: Node[], stretch: number): string {
  return nodes.map((node) => renderNode(node, stretch)).join('');
}

function renderNode(node: Node, stretch: number): string {
  switch (node.kind) {
    case 'chars':
      return node.pick;
    case 'group':
      return renderAlternative(node.alternatives[0] ?? [], stretch);
    case 'repeat': {
      const count = Math.min(node.max, node.min + (node.max > node.min ? stretch : 0));
      return renderNode(node.node, stretch).repeat(count);
    }
    default: {
      const exhaustive: never = node;
      return exhaustive;
    }
  }
}

const ESCAPE_PICKS: Record<string, string> = { d: '0', w: 'a', s: ' ', D: 'a', W: '-', S: 'a', n: '\n', t: '\t', r: '\r' };

class PatternParser {
  private position = 0;
  constructor(private readonly source: string) {}

  parse(): Node[][] {
    const alternatives = this.parseAlternatives();
    if (this.position < this.source.length) throw new Unsupported('trailing input');
    return alternatives;
  }

  private parseAlternatives(): Node[][] {
    const alternatives: Node[][] = [[]];
    while (this.position < this.source.length) {
      const char = this.source[this.position]!;
      if (char === ')') break;
      if (char === '|') {
        this.position++;
        alternatives.push([]);
        continue;
      }
      const atom = this.parseAtom();
      if (atom === undefined) continue;
      alternatives[alternatives.length - 1]!.push(this.parseQuantifier(atom));
    }
    return alternatives;
  }

  private parseAtom(): Node | undefined {
    const char = this.source[this.position++]!;
    switch (char) {
      case '^':
      case '$':
        return undefined; // anchors: the rendered string is the whole match anyway
      case '.':
        return { kind: 'chars', pick: 'a' };
      case '(': {
        if (this.source.startsWith('?:', this.position)) this.position += 2;
        else if (this.source[this.position] === '?') throw new Unsupported('lookaround or named group');
        const alternatives = this.parseAlternatives();
        if (this.source[this.position++] !== ')') throw new Unsupported('unclosed group');
        return { kind: 'group', alternatives };
      }
      case '[':
        return this.parseClass();
      case '\\':
        return { kind: 'chars', pick: this.parseEscape() };
      case '*':
      case '+':
      case '?':
      case '{':
        throw new Unsupported('quantifier without atom');
      default:
        return { kind: 'chars', pick: char };
    }
  }

  private parseEscape(): string {
    const char = this.source[this.position++];
    if (char === undefined) throw new Unsupported('dangling escape');
    if (char === 'b' || char === 'B' || char === 'p' || char === 'P' || /[1-9]/.test(char)) throw new Unsupported(`\\${char}`);
    if (char === 'u' || char === 'x') throw new Unsupported('code escapes');
    return ESCAPE_PICKS[char] ?? char;
  }

  private parseClass(): Node {
    const negated = this.source[this.position] === '^';
    if (negated) this.position++;
    const ranges: Array<[string, string]> = [];
    while (this.position < this.source.length && this.source[this.position] !== ']') {
      let char = this.source[this.position++]!;
      if (char === '\\') char = this.parseEscape();
      if (this.source[this.position] === '-' && this.source[this.position + 1] !== ']' && this.position + 1 < this.source.length) {
        this.position++;
        let end = this.source[this.position++]!;
        if (end === '\\') end = this.parseEscape();
        ranges.push([char, end]);
      } else {
        ranges.push([char, char]);
      }
    }
    if (this.source[this.position++] !== ']') throw new Unsupported('unclosed class');
    if (!negated) {
      if (ranges.length === 0) throw new Unsupported('empty class');
      return { kind: 'chars', pick: ranges[0]![0] };
    }
    // A negated class: the first of a few plain characters outside every listed range.
    const pick = ['a', 'x', 'Z', '0', '_', '-', ' '].find(
      (candidate) => !ranges.some(([start, end]) => candidate >= start && candidate <= end),
    );
    if (pick === undefined) throw new Unsupported('negated class');
    return { kind: 'chars', pick };
  }

  private parseQuantifier(atom: Node): Node {
    const char = this.source[this.position];
    let min: number;
    let max: number;
    if (char === '*') [min, max] = [0, Infinity];
    else if (char === '+') [min, max] = [1, Infinity];
    else if (char === '?') [min, max] = [0, 1];
    else if (char === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.position));
      if (match === null) return atom;
      min = Number(match[1]);
      max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
      this.position += match[0].length - 1;
    } else return atom;
    this.position++;
    if (this.source[this.position] === '?') this.position++; // lazy quantifiers render the same
    return { kind: 'repeat', node: atom, min, max };
  }
}
