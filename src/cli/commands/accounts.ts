import type { Command } from 'commander';
import { runAdmin } from '../../control/socket-client.js';
import { loadCliConfig, resolveDataDir, type GlobalOptions } from '../global-options.js';
import { formatTime, printInfo, printJson, printResult, renderTable } from '../output.js';

export function registerAccounts(program: Command, globals: () => GlobalOptions): void {
  const accounts = program
    .command('accounts')
    .description('accounts, plans and balances')
    .addHelpText('after', '\nExample:\n  igw accounts create team-a --plan free\n  igw keys create --account team-a');

  accounts
    .command('list')
    .description('list accounts with plan and balances')
    .option('--json', 'print a JSON array')
    .addHelpText('after', '\nExample:\n  igw accounts list --json')
    .action(async (options: { json?: boolean }) => {
      const config = await loadCliConfig(globals());
      const list = await runAdmin(resolveDataDir(globals()), config, 'accounts.list', {});
      if (options.json === true) return printJson(list);
      if (list.length === 0) return printInfo('no accounts yet; `igw keys create` makes the "default" one');
      printResult(renderTable(['ID', 'PLAN', 'ENERGY', 'CREDITS', 'CREATED'], list.map((account) => [account.id, account.plan, account.energy, account.credits, formatTime(account.created_at)])));
    });

  accounts
    .command('create')
    .description('create an account')
    .argument('<id>', 'account id')
    .option('--plan <p>', 'plan name (default: the config default_plan)')
    .option('--json', 'print the account')
    .addHelpText('after', '\nExample:\n  igw accounts create team-a --plan free')
    .action(async (id: string, options: { plan?: string; json?: boolean }) => {
      const config = await loadCliConfig(globals());
      const account = await runAdmin(resolveDataDir(globals()), config, 'accounts.create', { id, ...(options.plan === undefined ? {} : { plan: options.plan }) });
      if (options.json === true) return printJson(account);
      printInfo(`created account ${account.id} on plan ${account.plan}`);
    });

  accounts
    .command('set')
    .description('change plan or balances (decimal amounts, or "unlimited")')
    .argument('<id>', 'account id')
    .option('--plan <p>', 'plan name')
    .option('--energy <dec>', 'energy balance')
    .option('--credits <dec>', 'credit balance (EUR)')
    .option('--json', 'print the account')
    .addHelpText('after', '\nExample:\n  igw accounts set default --energy 5000 --credits 12.50')
    .action(async (id: string, options: { plan?: string; energy?: string; credits?: string; json?: boolean }) => {
      const config = await loadCliConfig(globals());
      const account = await runAdmin(resolveDataDir(globals()), config, 'accounts.set', {
        id,
        ...(options.plan === undefined ? {} : { plan: options.plan }),
        ...(options.energy === undefined ? {} : { energy: options.energy }),
        ...(options.credits === undefined ? {} : { credits: options.credits }),
      });
      if (options.json === true) return printJson(account);
      printInfo(`account ${account.id}: plan ${account.plan}, energy ${account.energy}, credits ${account.credits}`);
    });
}
