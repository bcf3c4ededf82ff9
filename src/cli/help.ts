import type { Command } from 'commander';

/** `igw keys create`, as a user types it. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current !== null; current = current.parent) names.unshift(current.name());
  return names.join(' ');
}

/**
 * Every command, at any depth: errors go through main's handler (exitOverride), and a
 * command-line mistake points at the help of the command that was mistyped, not the top level
 * (`(run igw keys create --help for usage)`).
 */
export function helpForEveryCommand(command: Command): void {
  command.exitOverride();
  command.showHelpAfterError(`(run ${commandPath(command)} --help for usage)`);
  for (const sub of command.commands) helpForEveryCommand(sub);
}
