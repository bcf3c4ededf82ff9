import path from 'node:path';
import type { Command } from 'commander';
import { parseDuration } from '../../admin/duration.js';
import { readRequestLog } from '../../store/request-log.js';
import { aggregateUsage, type UsageGrouping } from '../../usage/aggregate.js';
import { resolveDataDir, type GlobalOptions } from '../global-options.js';
import { printJson, printResult, renderTable } from '../output.js';
import { UserError } from '../user-error.js';

const GROUPINGS: UsageGrouping[] = ['model', 'key', 'day', 'provider'];

export function registerUsage(program: Command, globals: () => GlobalOptions): void {
  program
    .command('usage')
    .description('requests, tokens, cost and impact from the request log')
    .option('--since <duration>', 'how far back, e.g. 24h, 7d', '7d')
    .option('--by <grouping>', 'model | key | day | provider', 'model')
    .option('--json', 'print {since, by, rows, total}')
    .addHelpText('after', '\nExample:\n  igw usage --since 30d --by day')
    .action(async (options: { since: string; by: string; json?: boolean }) => {
      if (!(GROUPINGS as string[]).includes(options.by)) throw new UserError(`invalid --by "${options.by}"`, `use one of: ${GROUPINGS.join(', ')}`);
      let seconds: number;
      try {
        seconds = parseDuration(options.since);
      } catch {
        throw new UserError(`invalid --since "${options.since}"`, 'use a number with a unit: 90m, 12h, 7d, 2w');
      }
      const since = Date.now() - seconds * 1000;
      const entries = await readRequestLog(path.join(resolveDataDir(globals()), 'logs'), since);
      const { rows, total } = aggregateUsage(entries, options.by as UsageGrouping);
      if (options.json === true) return printJson({ since: new Date(since).toISOString(), by: options.by, rows, total });
      const cells = (row: typeof total) => [row.group, String(row.requests), String(row.errors), String(row.input_tokens), String(row.output_tokens), row.eur, row.energy, row.energy_kwh.toExponential(3), row.carbon_g_co2.toFixed(3)];
      printResult(renderTable([options.by.toUpperCase(), 'REQUESTS', 'ERRORS', 'IN TOKENS', 'OUT TOKENS', 'EUR', 'ENERGY', 'KWH', 'CO2 G'], [...rows.map(cells), cells(total)]));
    });
}
