import type { Command } from 'commander';
import { runAdmin } from '../../control/socket-client.js';
import { loadCliConfig, resolveDataDir, type GlobalOptions } from '../global-options.js';
import { formatTime, printInfo, printJson, printResult, renderTable } from '../output.js';

interface CreateOptions {
  name?: string;
  scopes?: string;
  vault?: boolean;
  account?: string;
  expiresIn?: string;
  json?: boolean;
}

function scopesText(scopes: string[]): string {
  return scopes.length === 0 ? 'all (no scope list)' : scopes.join(',');
}

export function registerKeys(program: Command, globals: () => GlobalOptions): void {
  const keys = program
    .command('keys')
    .description('create, list, revoke and rotate API keys')
    .addHelpText('after', '\nExample:\n  export IGW_API_KEY=$(igw keys create --name laptop)\n  igw keys list');

  keys
    .command('create')
    .description('create an API key; the full key is printed once, on stdout')
    .option('--name <s>', 'a label for the key')
    .option('--scopes <a,b>', 'comma-separated scopes (default: full access)')
    .option('--vault', 'allow vector stores (vault access)')
    .option('--account <id>', 'account the key bills to (default: "default")')
    .option('--expires-in <duration>', 'lifetime such as 90m, 12h, 30d')
    .option('--json', 'print {id, key, name, scopes, vault_access, account, created_at, expires_at}')
    .addHelpText('after', '\nExample:\n  export IGW_API_KEY=$(igw keys create --name laptop)')
    .action(async (options: CreateOptions) => {
      const config = await loadCliConfig(globals());
      const created = await runAdmin(resolveDataDir(globals()), config, 'keys.create', {
        ...(options.name === undefined ? {} : { name: options.name }),
        ...(options.scopes === undefined ? {} : { scopes: options.scopes.split(',').map((scope) => scope.trim()).filter(Boolean) }),
        vault: options.vault === true,
        ...(options.account === undefined ? {} : { account: options.account }),
        ...(options.expiresIn === undefined ? {} : { expiresIn: options.expiresIn }),
      });
      if (options.json === true) return printJson(created);
      printResult(created.key);
      printInfo(
        `created ${created.id} for account ${created.account} (scopes: ${scopesText(created.scopes)}${created.vault_access ? ', vault' : ''}${created.expires_at === null ? '' : `, expires ${formatTime(created.expires_at)}`}); store the key now, it is not shown again`,
      );
    });

  keys
    .command('list')
    .description('list keys (never the full key)')
    .option('--json', 'print a JSON array')
    .addHelpText('after', '\nExample:\n  igw keys list --json')
    .action(async (options: { json?: boolean }) => {
      const config = await loadCliConfig(globals());
      const list = await runAdmin(resolveDataDir(globals()), config, 'keys.list', {});
      if (options.json === true) return printJson(list);
      if (list.length === 0) return printInfo('no keys yet; create one with: igw keys create');
      printResult(
        renderTable(
          ['ID', 'NAME', 'KEY', 'ACCOUNT', 'SCOPES', 'VAULT', 'STATUS', 'CREATED', 'EXPIRES'],
          list.map((key) => [key.id, key.cli ? `${key.name} (this CLI's own key)` : key.name, key.key, key.account, scopesText(key.scopes), key.vault_access ? 'yes' : 'no', key.status, formatTime(key.created_at), formatTime(key.expires_at)]),
        ),
      );
    });

  keys
    .command('revoke')
    .description('revoke a key; it stops working at once')
    .argument('<id>', 'key id (from igw keys list)')
    .option('--json', 'print {id, revoked_at}')
    .addHelpText('after', '\nExample:\n  igw keys revoke key_AbC123')
    .action(async (id: string, options: { json?: boolean }) => {
      const config = await loadCliConfig(globals());
      const result = await runAdmin(resolveDataDir(globals()), config, 'keys.revoke', { id });
      if (options.json === true) return printJson(result);
      printInfo(`revoked ${id}`);
    });

  keys
    .command('rotate')
    .description('replace a key with a new one (same settings); the old one stops working at once, or after --grace')
    .argument('<id>', 'key id (from igw keys list)')
    .option('--grace <duration>', 'keep the old key working this long (90m, 24h, 7d) so clients can move without downtime', '0')
    .option('--json', 'print the new key object with replaces and old_key_valid_until')
    .addHelpText('after', '\nExamples:\n  export IGW_API_KEY=$(igw keys rotate key_AbC123)\n  igw keys rotate key_AbC123 --grace 24h --json')
    .action(async (id: string, options: { grace: string; json?: boolean }) => {
      const config = await loadCliConfig(globals());
      const created = await runAdmin(resolveDataDir(globals()), config, 'keys.rotate', { id, grace: options.grace });
      if (options.json === true) return printJson(created);
      printResult(created.key);
      const until = created.old_key_valid_until > created.created_at ? `${id} keeps working until ${formatTime(created.old_key_valid_until)}` : `${id} stopped working`;
      printInfo(`rotated ${id} → ${created.id}; ${until}; store the new key now, it is not shown again`);
    });
}
