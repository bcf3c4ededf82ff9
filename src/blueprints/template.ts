/**
 * `{{name}}` placeholders (optional spaces inside the braces). Only identifiers are placeholders:
 * any other `{{…}}` (code samples, other template languages) is literal text and stays as is.
 */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}/g;

/** The placeholder names in a template, each once, in order of first use. */
export function placeholdersOf(template: string): string[] {
  const names = new Set<string>();
  for (const match of template.matchAll(PLACEHOLDER)) names.add(match[1]!);
  return [...names];
}

/**
 * Replaces every placeholder with its value. The caller has resolved every declared name;
 * values are inserted verbatim (a value containing `{{x}}` is not expanded again).
 */
export function renderTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => values[name] ?? whole);
}
