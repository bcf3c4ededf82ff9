import { findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { blueprintSchema, skillSchema } from '../../blueprints/documents.js';
import { describeIssue, type IssueLike } from '../../endpoints/validation/issue-text.js';
import { fieldPath } from '../../endpoints/validation/parse.js';
import type { VaultKind } from '../../vault/vault.js';
import { plural } from '../format.js';
import { ProblemsError } from '../user-error.js';

/** 1-based line of a character offset. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) line += 1;
  return line;
}

/** The deepest node of the document on `path` (a missing field: the object that lacks it). */
function nodeOn(root: Node, path: PropertyKey[]): Node {
  for (let length = path.length; length > 0; length -= 1) {
    const node = findNodeAtLocation(root, path.slice(0, length) as Array<string | number>);
    if (node !== undefined) return node;
  }
  return root;
}

/**
 * The local check of a blueprint or skill file (DESIGN §1 "local checks"): every problem in one
 * pass, each as FILE:LINE: field, with the document format's own rules (src/blueprints/documents)
 * — JSON syntax first, then the schema. Returns the document when there is none; nothing is
 * stored and no vault key is asked for before the file is right.
 */
export function checkVaultDocument(kind: VaultKind, file: string, text: string): unknown {
  const syntax: ParseError[] = [];
  const root = parseTree(text, syntax, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  if (syntax.length > 0 || root === undefined) {
    const problems = syntax.map((error) => `${file}:${lineAt(text, error.offset)}: not valid JSON (${printParseErrorCode(error.error)})`);
    throw new ProblemsError(problems, `${file} is not valid JSON (${plural(Math.max(1, syntax.length), 'problem')})`, `fix the file and run igw ${kind}s create again`);
  }
  const document = JSON.parse(text) as unknown;
  const parsed = (kind === 'blueprint' ? blueprintSchema : skillSchema).safeParse(document);
  if (parsed.success) return document;
  const problems = parsed.error.issues.map((issue) => {
    const { path, text: what } = describeIssue(issue as IssueLike, document);
    const field = path.length === 0 ? 'document' : fieldPath(path);
    const joiner = /^(is|must|has|needs) /.test(what) ? ' ' : ': ';
    return `${file}:${lineAt(text, nodeOn(root, path).offset)}: ${field}${joiner}${what}`;
  });
  throw new ProblemsError(
    problems,
    `${plural(problems.length, 'problem')} in ${kind} ${file}`,
    `fix them (the format is schemas/${kind}.schema.json, see README "Blueprints and skills") and run igw ${kind}s create again`,
  );
}
