import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { runAdmin } from '../../control/socket-client.js';
import type { VaultKind } from '../../vault/vault.js';
import { loadCliConfig, resolveDataDir, type GlobalOptions } from '../global-options.js';
import { formatTime, printInfo, printJson, printResult, renderTable } from '../output.js';
import { UserError } from '../user-error.js';
import { checkVaultDocument } from './blueprints-check.js';
import { readVaultKey } from './blueprints-vault-key.js';

const PLURAL: Record<VaultKind, string> = { blueprint: 'blueprints', skill: 'skills' };

/** Reads a blueprint or skill file and checks it locally: every problem at once, before any vault key. */
async function readDocument(kind: VaultKind, file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UserError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`, 'give the path of a JSON file');
  }
  return checkVaultDocument(kind, file, text);
}

/** `igw blueprints …` and `igw skills …`: the same four commands over the account's vault. */
export function registerVaultItems(program: Command, globals: () => GlobalOptions, kind: VaultKind, example: string): void {
  const plural = PLURAL[kind];
  const group = program
    .command(plural)
    .description(`create, list, show and remove ${plural} in the account's vault (vault key: IGW_VAULT_KEY, or asked on a terminal)`)
    .addHelpText('after', `\nExample:\n  export IGW_VAULT_KEY='a long passphrase'\n  igw ${plural} create ${example}\n  igw ${plural} list`);
  const run = async <Name extends 'vault.create' | 'vault.list' | 'vault.show' | 'vault.rm'>(name: Name, args: Record<string, unknown>, account: string | undefined) => {
    const config = await loadCliConfig(globals());
    const vaultKey = await readVaultKey();
    return runAdmin(resolveDataDir(globals()), config, name, { kind, vault_key: vaultKey, ...(account === undefined ? {} : { account }), ...args } as never);
  };

  group
    .command('create')
    .description(`store a ${kind} document (JSON, see schemas/${kind}.schema.json); prints its id`)
    .argument('<file>', `the ${kind} JSON file`)
    .option('--account <id>', 'account whose vault keeps it (default: "default")')
    .option('--json', 'print {id, kind, name, description, account, created_at}')
    .addHelpText('after', `\nExample:\n  IGW_VAULT_KEY='a long passphrase' igw ${plural} create ${example}`)
    .action(async (file: string, options: { account?: string; json?: boolean }) => {
      const document = await readDocument(kind, file);
      const created = await run('vault.create', { document }, options.account);
      if (options.json === true) return printJson(created);
      printResult(created.id);
      printInfo(`stored ${kind} "${created.name}" as ${created.id} in the vault of account ${created.account}`);
    });

  group
    .command('list')
    .description(`list the ${plural} of the account`)
    .option('--account <id>', 'account (default: "default")')
    .option('--json', 'print a JSON array')
    .addHelpText('after', `\nExample:\n  igw ${plural} list --json`)
    .action(async (options: { account?: string; json?: boolean }) => {
      const items = await run('vault.list', {}, options.account);
      if (options.json === true) return printJson(items);
      if (items.length === 0) return printInfo(`no ${plural} yet; store one with: igw ${plural} create FILE`);
      printResult(renderTable(['ID', 'NAME', 'DESCRIPTION', 'CREATED'], items.map((item) => [item.id, item.name, item.description ?? '', formatTime(item.created_at)])));
    });

  group
    .command('show')
    .description(`print a stored ${kind} document`)
    .argument('<id>', `${kind} id (from igw ${plural} list)`)
    .option('--account <id>', 'account (default: "default")')
    .option('--json', 'print {id, kind, name, description, account, created_at, document}')
    .addHelpText('after', `\nExample:\n  igw ${plural} show 3f0c…  > ${kind}.json`)
    .action(async (id: string, options: { account?: string; json?: boolean }) => {
      const item = await run('vault.show', { id }, options.account);
      printJson(options.json === true ? item : item.document);
    });

  group
    .command('rm')
    .description(`remove a stored ${kind}`)
    .argument('<id>', `${kind} id (from igw ${plural} list)`)
    .option('--account <id>', 'account (default: "default")')
    .option('--json', 'print {id, deleted}')
    .addHelpText('after', `\nExample:\n  igw ${plural} rm 3f0c…`)
    .action(async (id: string, options: { account?: string; json?: boolean }) => {
      const result = await run('vault.rm', { id }, options.account);
      if (options.json === true) return printJson(result);
      printInfo(`removed ${kind} ${id}`);
    });
}

export function registerBlueprints(program: Command, globals: () => GlobalOptions): void {
  registerVaultItems(program, globals, 'blueprint', 'support-bot.json');
}
