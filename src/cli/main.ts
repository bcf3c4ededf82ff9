import { Command, CommanderError } from 'commander';
import { AdminError } from '../admin/admin-error.js';
import { registerAccounts } from './commands/accounts.js';
import { registerBatch } from './commands/batch.js';
import { registerBlueprints } from './commands/blueprints.js';
import { registerConfig } from './commands/config.js';
import { registerConvert } from './commands/convert.js';
import { registerKb } from './commands/kb.js';
import { registerKeys } from './commands/keys.js';
import { registerMigrate } from './commands/migrate.js';
import { registerModels } from './commands/models.js';
import { registerServe } from './commands/serve.js';
import { registerSkills } from './commands/skills.js';
import { registerUsage } from './commands/usage.js';
import type { GlobalOptions } from './global-options.js';
import { helpForEveryCommand } from './help.js';
import { ProblemsError, UserError, userErrorLine } from './user-error.js';
import { VERSION } from '../util/version.js';

/** The whole command tree (no side effects until parsed; the help tests walk it). */
export function buildProgram(): Command {
  const program = new Command('igw')
    .description('igw: a local, metered, OpenAI- and Anthropic-compatible inference gateway')
    .option('--data-dir <dir>', 'data directory (env IGW_DATA_DIR; default $XDG_DATA_HOME/igw)')
    .option('--config <file>', 'config file (env IGW_CONFIG; else ./igw.config.json, else $XDG_CONFIG_HOME/igw/config.json)')
    .option('--base-url <url>', 'gateway URL for client commands (env IGW_BASE_URL; default http://127.0.0.1:8787)')
    .option('--api-key <key>', "API key for client commands (env IGW_API_KEY; default: the CLI's own key of the data dir)")
    .version(VERSION, '-V, --version', 'print the igw version')
    .addHelpText('after', '\nExample:\n  igw serve &\n  igw models --meta            # on the gateway\'s machine no key is needed\n  export IGW_API_KEY=$(igw keys create --name laptop)   # a key for curl and SDKs')
    .exitOverride();
  const globals = () => program.opts<GlobalOptions>();
  registerServe(program, globals);
  registerKeys(program, globals);
  registerAccounts(program, globals);
  registerModels(program, globals);
  registerKb(program, globals);
  registerBatch(program, globals);
  registerUsage(program, globals);
  registerBlueprints(program, globals);
  registerSkills(program, globals);
  registerConfig(program, globals);
  registerMigrate(program, globals);
  registerConvert(program);
  helpForEveryCommand(program);
  return program;
}

/** Exit codes (README "Exit codes"): 0 ok, 1 user error, 2 bad command line, 70 internal bug. */
export async function main(argv: string[]): Promise<void> {
  // Everything igw writes into the data dir is private to this user (DESIGN §6: files 0600, folders 0700).
  process.umask(0o077);
  const program = buildProgram();

  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; anything else commander refused is a command-line mistake.
      process.exitCode = error.exitCode === 0 ? 0 : 2;
      return;
    }
    if (error instanceof UserError || error instanceof AdminError) {
      if (error instanceof ProblemsError) process.stderr.write(error.problems.map((line) => `${line}\n`).join(''));
      process.stderr.write(`${userErrorLine(error.message, error.nextStep)}\n`);
      process.exitCode = 1;
      return;
    }
    process.stderr.write(`igw: internal error (a bug; please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 70;
  }
}
