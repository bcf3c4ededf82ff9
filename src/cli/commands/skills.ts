import type { Command } from 'commander';
import type { GlobalOptions } from '../global-options.js';
import { registerVaultItems } from './blueprints.js';

export function registerSkills(program: Command, globals: () => GlobalOptions): void {
  registerVaultItems(program, globals, 'skill', 'weather-skill.json');
}
