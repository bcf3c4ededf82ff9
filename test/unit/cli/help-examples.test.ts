import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commandPath } from '../../../src/cli/help.js';
import { buildProgram } from '../../../src/cli/main.js';

/** Every command of the tree, at any depth (the walk a user does with --help). */
function everyCommand(command: Command): Command[] {
  return [command, ...command.commands.flatMap(everyCommand)];
}

/** The full --help text of a command, as printed (with the texts added after it). */
function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk), writeErr: (chunk) => (text += chunk) });
  command.outputHelp();
  return text;
}

describe('--help of every command', () => {
  const commands = everyCommand(buildProgram());

  it('reaches the nested commands', () => {
    expect(commands.map(commandPath)).toEqual(expect.arrayContaining(['igw batch list', 'igw batch get', 'igw batch wait', 'igw batch cancel', 'igw batch results', 'igw kb sync', 'igw keys create']));
  });

  it.each(commands.map((command) => [commandPath(command), command] as const))('%s --help shows an example that runs igw', (_name, command) => {
    const example = helpOf(command).split(/\nExamples?:\n/)[1];
    expect(example, 'no "Example:" section').toBeDefined();
    expect(example).toMatch(/^\s+.*\bigw /m);
  });

  it.each(commands.map((command) => [commandPath(command), command] as const))('%s: a command-line mistake points at its own --help', (name, command) => {
    let text = '';
    command.configureOutput({ writeOut: () => undefined, writeErr: (chunk) => (text += chunk) });
    expect(() => command.parse(['--surely-not-an-option'], { from: 'user' })).toThrow();
    expect(text).toContain(`(run ${name} --help for usage)`);
  });
});
