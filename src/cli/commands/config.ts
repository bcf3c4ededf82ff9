import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { STARTER_CONFIG } from '../../config/defaults.js';
import { ConfigError, describeConfigSource, loadConfig } from '../../config/load.js';
import type { GlobalOptions } from '../global-options.js';
import { plural } from '../format.js';
import { printInfo, printJson, printResult } from '../output.js';
import { UserError } from '../user-error.js';

export function registerConfig(program: Command, globals: () => GlobalOptions): void {
  const config = program
    .command('config')
    .description('write or check igw.config.json')
    .addHelpText('after', '\nExample:\n  igw config init && igw config check');

  config
    .command('init')
    .description('write a commented starter config (./igw.config.json, or --config FILE)')
    .option('--force', 'overwrite an existing file')
    .addHelpText('after', '\nExample:\n  igw config init && igw config check')
    .action(async (options: { force?: boolean }) => {
      const target = path.resolve(globals().config ?? process.env['IGW_CONFIG'] ?? 'igw.config.json');
      try {
        await writeFile(target, STARTER_CONFIG, { flag: options.force === true ? 'w' : 'wx' });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new UserError(`${target} already exists`, 'edit it, or pass --force to overwrite it');
        throw error;
      }
      printResult(target);
      printInfo('wrote a starter config; check it with: igw config check');
    });

  config
    .command('check')
    .description('validate the config and print every problem with its JSON path')
    .option('--json', 'print {ok, source, issues}')
    .addHelpText('after', '\nExample:\n  igw --config ./igw.config.json config check')
    .action(async (options: { json?: boolean }) => {
      try {
        const loaded = await loadConfig({ configPath: globals().config, env: process.env, cwd: process.cwd() });
        if (options.json === true) return printJson({ ok: true, source: loaded.source, found_by: loaded.found_by ?? null, issues: [] });
        printResult(`ok: ${describeConfigSource(loaded)}: ${plural(Object.keys(loaded.models).length, 'model')}, ${plural(Object.keys(loaded.providers).length, 'provider')}`);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        if (options.json === true) {
          printJson({ ok: false, source: error.source, found_by: error.foundBy ?? null, issues: error.issues });
        } else {
          for (const issue of error.issues) printInfo(`${issue.path}: ${issue.message}`);
          printInfo(`igw: ${plural(error.issues.length, 'problem')} in ${error.source === null ? 'the config' : describeConfigSource({ source: error.source, ...(error.foundBy === undefined ? {} : { found_by: error.foundBy }) })}; fix them and run igw config check again`);
        }
        process.exitCode = 1;
      }
    });
}
