import type { Command } from 'commander';
import { startGateway } from '../../app/gateway.js';
import { DataKeyError } from '../../crypto/data-key.js';
import { DataDirLockedError } from '../../store/lock.js';
import { loadCliConfig, resolveDataDir, type GlobalOptions } from '../global-options.js';
import { printInfo, printResult } from '../output.js';
import { UserError } from '../user-error.js';

interface ServeOptions {
  port?: string;
  host?: string;
  tui: boolean;
}

function parsePort(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UserError(`invalid port "${text}"`, 'use a number from 0 to 65535 (0 picks a free port)');
  return port;
}

export function registerServe(program: Command, globals: () => GlobalOptions): void {
  program
    .command('serve')
    .description('start the gateway (built-in offline models unless the config adds providers)')
    .option('--port <n>', 'port to listen on (0 picks a free port; default 8787)')
    .option('--host <h>', 'address to bind (default 127.0.0.1)')
    .option('--no-tui', 'plain log output even on a terminal')
    .addHelpText('after', '\nExample:\n  igw serve --port 8787\n  curl http://127.0.0.1:8787/v1/models -H "Authorization: Bearer $IGW_API_KEY"')
    .action(async (options: ServeOptions) => {
      const config = await loadCliConfig(globals());
      const dataDir = resolveDataDir(globals());
      const port = parsePort(options.port);
      // Signals are handled from the start: a SIGTERM that lands while the gateway is still
      // starting (or right as it prints its line) stops it cleanly once it is up.
      let stopRequested: string | null = null;
      let stop: (signal: string) => void = (signal) => {
        stopRequested = signal;
      };
      process.on('SIGINT', () => stop('SIGINT'));
      process.on('SIGTERM', () => stop('SIGTERM'));
      let gateway: Awaited<ReturnType<typeof startGateway>>;
      try {
        gateway = await startGateway({ dataDir, config, ...(port === undefined ? {} : { port }), ...(options.host === undefined ? {} : { host: options.host }) });
      } catch (error) {
        if (error instanceof DataDirLockedError) {
          throw new UserError(`${error.message}`, 'stop that process first, or pass --data-dir to use another data dir');
        }
        if (error instanceof DataKeyError) {
          throw new UserError(error.message, 'set IGW_VAULT_KEY to the key this data dir was created with, or unset it to use <data dir>/vault.key');
        }
        if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
          throw new UserError(`port ${port ?? config.server.port} is already in use`, 'pick another with --port N (0 picks a free one)');
        }
        throw error;
      }
      let stopping = false;
      stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        printInfo(JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: 'shutting down', signal }));
        void gateway.close().then(
          () => process.exit(0),
          (error: unknown) => {
            printInfo(`igw: shutdown failed: ${String(error)}`);
            process.exit(1);
          },
        );
      };
      // The one line scripts wait for (DESIGN §1); logs go to stderr.
      printResult(`igw listening on ${gateway.url}`);
      if (process.stdout.isTTY && options.tui) {
        printInfo(`data dir ${dataDir}; config ${config.source ?? 'built-in defaults'}. Create a key with: igw keys create. Ctrl-C stops.`);
      }
      if (stopRequested !== null) stop(stopRequested);
    });
}
