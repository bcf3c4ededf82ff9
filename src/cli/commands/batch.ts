import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { GatewayClient } from '../../client/gateway-client.js';
import { resolveApiKey, resolveBaseUrl, type GlobalOptions } from '../global-options.js';
import { formatBytes, plural } from '../format.js';
import { formatTime, printInfo, printJson, printResult, renderTable } from '../output.js';
import { colorEnabled, interactive } from '../ui/terminal.js';
import { UserError } from '../user-error.js';
import { batchExitCode, followBatch, progressLine, rowsNotRun, summaryLine, TERMINAL, type BatchView } from './batch-follow.js';
import { followAgainCommand, onInterrupt } from './batch-interrupt.js';
import { validateBatchFile } from './batch-validate.js';

/** The outcome codes of `--wait` and `batch wait` (DESIGN §1; README "Exit codes"). */
const EXIT_CODES_HELP = [
  'Exit codes (--wait, batch wait):',
  '  0    every row succeeded',
  '  3    the batch finished with errored rows (see --errors FILE)',
  '  4    the batch failed or expired',
  '  5    the batch was cancelled',
  '  130  interrupted (Ctrl-C): the batch keeps running; the command to follow it again is printed',
  '  1    an error before that (bad file, no gateway, bad key)',
].join('\n');

interface FollowOptions {
  json?: boolean;
  output?: string;
  errors?: string;
}

function clientOf(globals: () => GlobalOptions): GatewayClient {
  return new GatewayClient(resolveBaseUrl(globals()), resolveApiKey(globals()));
}

function parseMetadata(pairs: string[] | undefined): Record<string, string> | undefined {
  if (pairs === undefined || pairs.length === 0) return undefined;
  const metadata: Record<string, string> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new UserError(`--metadata ${JSON.stringify(pair)} is not KEY=VALUE`, 'write it as --metadata team=search');
    metadata[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  if (Object.keys(metadata).length > 16) throw new UserError('more than 16 --metadata pairs', 'keep at most 16');
  return metadata;
}

/** Writes a stored file's content to a path, or to stdout when path is '-'. */
async function saveFile(client: GatewayClient, fileId: string, target: string): Promise<void> {
  const content = await client.download(`/v1/files/${encodeURIComponent(fileId)}/content`);
  if (target === '-') {
    // A reader that stops early (| head) is not an error.
    await pipeline(content, process.stdout, { end: false }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
    return;
  }
  await pipeline(content, createWriteStream(target));
}

/** Saves output/error files where asked; returns what was written, for --json. */
async function saveResults(client: GatewayClient, batch: BatchView, options: { output?: string; errors?: string }): Promise<{ output: string | null; errors: string | null }> {
  const saved = { output: null as string | null, errors: null as string | null };
  if (options.output !== undefined) {
    if (batch.output_file_id !== null) {
      await saveFile(client, batch.output_file_id, options.output);
      saved.output = options.output;
    } else printInfo(`${batch.id} has no output file (no row succeeded)`);
  }
  if (options.errors !== undefined) {
    if (batch.error_file_id !== null) {
      await saveFile(client, batch.error_file_id, options.errors);
      saved.errors = options.errors;
    } else printInfo(`${batch.id} has no error file (no row failed)`);
  }
  return saved;
}

/** `--output -` and `--json` would both write to stdout: one document or the rows, not both. */
function refuseTwoStdoutDocuments(options: FollowOptions): void {
  if (options.json === true && options.output === '-') {
    throw new UserError('--json and --output - would both write to stdout', 'write the rows to a file with --output FILE, or leave out --json');
  }
}

/**
 * Follows a batch to its end: an ink progress view on a terminal, else one plain line per change
 * on stderr. Then the results where asked, the batch (or a summary) and the exit code of the
 * outcome (batchExitCode). When stdout carries data (--output -, --json) the summary goes to
 * stderr with every other status line. Ctrl-C stops following, not the batch: it says how to
 * follow it again and exits 130.
 */
async function follow(client: GatewayClient, id: string, options: FollowOptions, globals: GlobalOptions): Promise<void> {
  const live = interactive(process.stderr, { json: false });
  // ink and react load only for a terminal view: every other command (serve included) starts without them.
  const view = live ? (await import('../ui/batch-progress.js')).renderBatchProgress(process.stderr, colorEnabled()) : null;
  const intervalMs = Number(process.env['IGW_BATCH_POLL_MS'] ?? '') || undefined;
  const stopInterrupt = onInterrupt(() => {
    view?.done();
    printInfo(`igw: stopped following ${id}; the batch keeps running on the gateway. Follow it again with: ${followAgainCommand(id, options, globals)}`);
  });
  let last: BatchView | undefined;
  try {
    for await (const progress of followBatch(client, id, intervalMs === undefined ? {} : { intervalMs })) {
      last = progress.batch;
      if (view !== null) view.update(progress);
      else printInfo(progressLine(progress));
    }
  } finally {
    stopInterrupt();
    view?.done();
  }
  const batch = last!;
  const saved = await saveResults(client, batch, options);
  const code = batchExitCode(batch);
  if (options.json === true) printJson({ ...batch, saved });
  else if (options.output === '-') printInfo(summaryLine(batch));
  else printResult(summaryLine(batch));
  for (const error of batch.errors?.data ?? []) printInfo(`  ${error.code}: ${error.message}`);
  if ((batch.request_counts.errored > 0 || rowsNotRun(batch) > 0) && options.errors === undefined) {
    printInfo(`the error file lists each row that did not succeed: igw batch results ${batch.id} --errors errors.jsonl`);
  }
  process.exitCode = code;
}

export function registerBatch(program: Command, globals: () => GlobalOptions): void {
  const batch = program
    .command('batch')
    .description('submit and follow JSONL batches on the running gateway')
    .addHelpText('after', `\n${EXIT_CODES_HELP}\n\nExample:\n  igw batch submit requests.jsonl --endpoint /v1/chat/completions --wait --output results.jsonl\n  igw batch list`);

  batch
    .command('submit <file>')
    .description('check a JSONL batch file, upload it and create the batch')
    .requiredOption('--endpoint <path>', 'target endpoint: /v1/chat/completions, /v1/embeddings or /v1/images/generations')
    .option('--window <duration>', 'completion window (24h, 90m, 2d…)', '24h')
    .option('--metadata <pairs...>', 'KEY=VALUE pairs kept on the batch (up to 16)')
    .option('--wait', 'follow the batch to its end (exit code from its outcome, see below)')
    .option('--output <file>', 'with --wait: write the output file here (- for stdout)')
    .option('--errors <file>', 'with --wait: write the error file here')
    .option('--json', 'print the batch object')
    .addHelpText('after', `\n${EXIT_CODES_HELP}\n\nThe file is checked before anything is uploaded: every problem is listed as FILE:LINE.\n\nExample:\n  igw batch submit requests.jsonl --endpoint /v1/chat/completions --wait --output results.jsonl \\\n    || echo "batch did not succeed (exit $?)"`)
    .action(async (file: string, options: FollowOptions & { endpoint: string; window: string; metadata?: string[]; wait?: boolean }) => {
      const metadata = parseMetadata(options.metadata);
      if ((options.output !== undefined || options.errors !== undefined) && options.wait !== true) {
        throw new UserError('--output and --errors need --wait', 'add --wait, or fetch later with: igw batch results ID --output FILE');
      }
      refuseTwoStdoutDocuments(options);
      const client = clientOf(globals);
      const checked = await validateBatchFile(file, options.endpoint, client);
      if (options.json !== true) printInfo(`${file}: ${plural(checked.rows, 'request')}, ${formatBytes(checked.bytes)}; uploading`);
      const uploaded = await client.uploadFile<{ id: string }>(file, 'batch');
      const created = await client.postJson<BatchView>('/v1/batches', {
        input_file_id: uploaded.id,
        endpoint: options.endpoint,
        completion_window: options.window,
        ...(metadata === undefined ? {} : { metadata }),
      });
      if (options.wait === true) {
        if (options.json !== true) printInfo(`created ${created.id}`);
        return follow(client, created.id, options, globals());
      }
      if (options.json === true) printJson(created);
      else printResult(created.id);
    });

  batch
    .command('list')
    .description("list this account's batches, newest first")
    .option('--limit <n>', 'how many (1-100)', '20')
    .option('--json', 'print the API response')
    .addHelpText('after', '\nExample:\n  igw batch list --limit 5\n  igw batch list --json | jq -r \'.data[] | select(.status == "in_progress") | .id\'')
    .action(async (options: { limit: string; json?: boolean }) => {
      const page = await clientOf(globals).getJson<{ data: BatchView[] }>(`/v1/batches?limit=${encodeURIComponent(options.limit)}`);
      if (options.json === true) return printJson(page);
      printResult(
        renderTable(
          ['ID', 'STATUS', 'ENDPOINT', 'DONE', 'ERRORED', 'CREATED'],
          page.data.map((entry) => [
            entry.id,
            entry.status,
            entry.endpoint,
            `${entry.request_counts.succeeded + entry.request_counts.errored}/${entry.request_counts.total}`,
            String(entry.request_counts.errored),
            formatTime(entry.created_at),
          ]),
        ),
      );
    });

  batch
    .command('get <id>')
    .description('show one batch')
    .option('--json', 'print the batch object')
    .addHelpText('after', '\nExample:\n  igw batch get batch_abc123\n  igw batch get batch_abc123 --json | jq .request_counts')
    .action(async (id: string, options: { json?: boolean }) => {
      const found = await clientOf(globals).getJson<BatchView>(`/v1/batches/${encodeURIComponent(id)}`);
      if (options.json === true) return printJson(found);
      const counts = found.request_counts;
      const notRun = rowsNotRun(found);
      printResult(
        [
          `id          ${found.id}`,
          `status      ${found.status}`,
          `endpoint    ${found.endpoint}`,
          `requests    ${counts.total} (succeeded ${counts.succeeded}, errored ${counts.errored}, ${notRun > 0 ? `${found.status === 'cancelled' ? 'cancelled' : 'not run'} ${notRun}` : `processing ${counts.processing}`})`,
          `input       ${found.input_file_id}`,
          `output      ${found.output_file_id ?? '-'}`,
          `errors      ${found.error_file_id ?? '-'}`,
          `created     ${formatTime(found.created_at)}`,
          `expires     ${formatTime(found.expires_at)}`,
          ...(found.errors?.data ?? []).map((error) => `failure     ${error.code}: ${error.message}`),
        ].join('\n'),
      );
    });

  batch
    .command('wait <id>')
    .description('follow a batch to its end (exit code from its outcome, see below)')
    .option('--output <file>', 'write the output file here (- for stdout)')
    .option('--errors <file>', 'write the error file here')
    .option('--json', 'print the final batch object')
    .addHelpText('after', `\n${EXIT_CODES_HELP}\n\nExample:\n  igw batch wait batch_abc123 --output results.jsonl --errors errors.jsonl\n  igw batch wait batch_abc123 --output - | jq -c '.response.body.choices[0].message'`)
    .action(async (id: string, options: FollowOptions) => {
      refuseTwoStdoutDocuments(options);
      return follow(clientOf(globals), id, options, globals());
    });

  batch
    .command('cancel <id>')
    .description('cancel a queued or running batch (finished rows are kept)')
    .option('--json', 'print the batch object')
    .addHelpText('after', '\nExample:\n  igw batch cancel batch_abc123 && igw batch wait batch_abc123 --errors not-run.jsonl')
    .action(async (id: string, options: { json?: boolean }) => {
      const cancelled = await clientOf(globals).postJson<BatchView>(`/v1/batches/${encodeURIComponent(id)}/cancel`);
      if (options.json === true) return printJson(cancelled);
      printResult(summaryLine(cancelled));
      // Rows in flight finish first: the batch reaches cancelled, and its counts, a moment later.
      if (cancelled.status !== 'cancelled') printInfo(`rows in flight finish first; see the final counts with: igw batch wait ${cancelled.id}`);
    });

  batch
    .command('results <id>')
    .description('download the results of a finished batch (output to stdout unless --output)')
    .option('--output <file>', 'write the output file here (default: stdout)')
    .option('--errors <file>', 'write the error file here')
    .option('--json', 'write files only where asked and print a summary object')
    .addHelpText('after', '\nExample:\n  igw batch results batch_abc123 > results.jsonl\n  igw batch results batch_abc123 --output results.jsonl --errors errors.jsonl')
    .action(async (id: string, options: FollowOptions) => {
      refuseTwoStdoutDocuments(options);
      const client = clientOf(globals);
      const found = await client.getJson<BatchView>(`/v1/batches/${encodeURIComponent(id)}`);
      if (!TERMINAL.has(found.status)) throw new UserError(`${found.id} is ${found.status}; results are written when it ends`, `wait for it: igw batch wait ${found.id} --output FILE`);
      const output = options.output ?? (options.json === true ? undefined : '-');
      const saved = await saveResults(client, found, { ...(output === undefined ? {} : { output }), ...(options.errors === undefined ? {} : { errors: options.errors }) });
      if (options.json === true) printJson({ id: found.id, status: found.status, output_file_id: found.output_file_id, error_file_id: found.error_file_id, saved });
    });
}
