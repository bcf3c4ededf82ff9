import type { Command } from 'commander';
import type { Activity } from '../../app/activity.js';
import { startGateway } from '../../app/gateway.js';
import { describeConfigSource } from '../../config/load.js';
import { DataKeyError } from '../../crypto/data-key.js';
import { DataDirLockedError } from '../../store/lock.js';
import type { RequestLogPort } from '../../store/repositories.js';
import { warmTokenizer } from '../../tokens/tokenizer.js';
import { writesNowhere } from '../../util/discarded-output.js';
import { loadCliConfig, resolveDataDir, type GlobalOptions } from '../global-options.js';
import { printInfo, printResult } from '../output.js';
import { RequestLines } from '../request-lines.js';
import { LogTail } from '../ui/log-tail.js';
import type { RunningDashboard } from '../ui/serve-dashboard.js';
import { colorEnabled, interactive } from '../ui/terminal.js';
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
      // On a terminal the dashboard owns the screen: logs are kept for it instead of torn into the frame.
      const tui = interactive(process.stdout, { noTui: !options.tui });
      const logTail = tui ? new LogTail() : null;
      let dashboard: RunningDashboard | null = null;
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
        gateway = await startGateway({ dataDir, config, ...(logTail === null ? {} : { logger: logTail.logger }), ...(port === undefined ? {} : { port }), ...(options.host === undefined ? {} : { host: options.host }) });
      } catch (error) {
        logTail?.release(true);
        if (error instanceof DataDirLockedError) {
          throw new UserError(`${error.message}`, 'stop that process first, or pass --data-dir to use another data dir');
        }
        if (error instanceof DataKeyError) {
          throw new UserError(error.message, error.nextStep);
        }
        if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
          throw new UserError(`port ${port ?? config.server.port} is already in use`, 'pick another with --port N (0 picks a free one)');
        }
        throw error;
      }
      // Plain mode: one JSON line per request (and per upstream failure) on stderr, unless stderr
      // is the null device: then nobody reads them and they are not built at all.
      const requestLines = logTail === null && !writesNowhere(2) ? new RequestLines((id) => gateway.app.activity.keyLabel(id)) : null;
      if (requestLines !== null) gateway.app.activity.onRequest((entry) => requestLines.record(entry));
      let stopping = false;
      stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        requestLines?.flush();
        if (logTail !== null) logTail.logger.info('shutting down', { signal });
        else printInfo(JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: 'shutting down', signal }));
        void gateway.close().then(
          () => {
            requestLines?.flush();
            dashboard?.close();
            process.exit(0);
          },
          (error: unknown) => {
            dashboard?.close();
            printInfo(`igw: shutdown failed: ${String(error)}`);
            process.exit(1);
          },
        );
      };
      if (logTail === null) {
        // The one line scripts wait for (DESIGN §1); logs go to stderr.
        printResult(`igw listening on ${gateway.url}`);
      } else {
        // ink and react load only here: plain mode (scripts, tests) starts without them.
        const { startServeDashboard } = await import('../ui/serve-dashboard.js');
        dashboard = startServeDashboard({
          info: { url: gateway.url, dataDir, config: describeConfigSource(config) },
          activity: gateway.app.activity,
          logTail,
          color: colorEnabled(),
          onQuit: () => stop('q'),
        });
        void seedToday(gateway.app.activity, gateway.app.store.requestLog, logTail);
      }
      if (stopRequested !== null) stop(stopRequested);
      // Build the tokenizer's rank table now, in short slices between event-loop turns, instead
      // of on the first request that counts tokens. Should the warm-up fail, that first count
      // builds it again and reports the error to its request.
      else warmTokenizer().catch(() => undefined);
    });
}

/** "Today" on the dashboard is the UTC day: count what earlier runs (team mode: every instance) logged today, read once. */
async function seedToday(activity: Activity, requestLog: RequestLogPort, logTail: LogTail): Promise<void> {
  try {
    await activity.seedTodayFrom(requestLog);
  } catch (error) {
    logTail.logger.warn('could not read today\'s request log', { error: String(error) });
  }
}
