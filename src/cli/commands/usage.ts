import path from 'node:path';
import type { Command } from 'commander';
import { parseDuration } from '../../admin/duration.js';
import { readKeyNames } from '../../store/keys.js';
import { readRequestLog, type RequestLogEntry } from '../../store/request-log.js';
import { aggregateUsage, daysBetween, USAGE_GROUPINGS, type UsageGrouping } from '../../usage/aggregate.js';
import { renderUsageTable } from '../../usage/render.js';
import { loadCliConfig, resolveDataDir, type GlobalOptions } from '../global-options.js';
import { printJson, printResult } from '../output.js';
import { styleFor } from '../ui/style.js';
import { interactive } from '../ui/terminal.js';
import { UserError } from '../user-error.js';

/** A terminal line holds about a month of one-character days next to the table. */
const CHART_DAYS = 31;

/** `--since`: a duration back from now (7d, 12h) or a UTC date/time (2026-01-31, ISO 8601). */
export function parseSince(text: string, now: number): number {
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const time = Date.parse(text);
    if (!Number.isNaN(time)) return time;
  } else {
    try {
      return now - parseDuration(text) * 1000;
    } catch {
      // fall through to the user error below
    }
  }
  throw new UserError(`invalid --since "${text}"`, 'use a duration such as 90m, 12h, 7d, 2w or a date such as 2026-01-31');
}

export function registerUsage(program: Command, globals: () => GlobalOptions): void {
  program
    .command('usage')
    .description('requests, tokens, cost, energy and CO2 from the request log, grouped')
    .option('--since <when>', 'how far back: a duration (24h, 7d) or a date (2026-01-31)', '7d')
    .option('--by <grouping>', 'model | key | day | provider', 'model')
    .option('--json', 'print {since, by, days, rows, total}; each row has exact sums and daily request counts')
    .addHelpText('after', '\nExamples:\n  igw usage --since 30d --by day\n  igw usage --by key --json | jq \'.rows[] | {group, eur}\'')
    .action(async (options: { since: string; by: string; json?: boolean }) => {
      if (!(USAGE_GROUPINGS as readonly string[]).includes(options.by)) throw new UserError(`invalid --by "${options.by}"`, `use one of: ${USAGE_GROUPINGS.join(', ')}`);
      const by = options.by as UsageGrouping;
      const now = Date.now();
      const since = parseSince(options.since, now);
      if (since > now) throw new UserError(`--since "${options.since}" is in the future`, 'give a past date or a duration such as 7d');
      const dataDir = resolveDataDir(globals());
      const config = await loadCliConfig(globals());
      let entries: RequestLogEntry[];
      let keyNames: Map<string, string> | undefined;
      if (config.store.kind === 'postgres') {
        // Team mode: every instance's requests, from the shared table (DESIGN §4).
        const { readTeamUsage } = await import('../../store/postgres/read-usage.js');
        ({ entries, keyNames } = await readTeamUsage(config.store.url, since, by === 'key'));
      } else {
        entries = await readRequestLog(path.join(dataDir, 'logs'), since);
        keyNames = by === 'key' ? await readKeyNames(dataDir) : undefined;
      }
      const days = daysBetween(since, now);
      if (options.json === true) {
        const { rows, total } = aggregateUsage(entries, by, { days, ...(keyNames === undefined ? {} : { keyNames }) });
        return printJson({ since: new Date(since).toISOString(), by, days, rows, total });
      }
      const chart = interactive(process.stdout);
      const chartDays = days.slice(-CHART_DAYS);
      const { rows, total } = aggregateUsage(entries, by, { ...(chart ? { days: chartDays } : {}), ...(keyNames === undefined ? {} : { keyNames }) });
      printResult(renderUsageTable(rows, total, { by, chart, dayCount: chartDays.length, style: styleFor(process.stdout) }));
    });
}
