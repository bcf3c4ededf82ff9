import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { GatewayClient } from '../../client/gateway-client.js';
import { resolveApiKey, resolveBaseUrl, type GlobalOptions } from '../global-options.js';
import { formatTime, printInfo, printJson, printResult, renderTable } from '../output.js';
import { colorEnabled, interactive } from '../ui/terminal.js';
import { UserError } from '../user-error.js';
import { BATCH_EXIT_CODES, followBatch, progressLine, TERMINAL, type BatchView } from './batch-follow.js';
import { validateBatchFile } from './batch-validate.js';

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

function summary(batch: BatchView): string {
  const counts = batch.request_counts;
  return `${batch.id} ${batch.status}: ${counts.succeeded} succeeded, ${counts.errored} errored of ${counts.total}`;
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

/**
 * Follows a batch to its end: an ink progress view on a terminal, else one plain line per change
 * on stderr. Then the results where asked, the batch (or a summary) on stdout, and the exit code
 * of its final status.
 */
async function follow(client: GatewayClient, id: string, options: FollowOptions): Promise<void> {
  const live = interactive(process.stderr, { json: false });
  // ink and react load only for a terminal view: every other command (serve included) starts without them.
  const view = live ? (await import('../ui/batch-progress.js')).renderBatchProgress(process.stderr, colorEnabled()) : null;
  const intervalMs = Number(process.env['IGW_BATCH_POLL_MS'] ?? '') || undefined;
  let last: BatchView | undefined;
  try {
    for await (const progress of followBatch(client, id, intervalMs === undefined ? {} : { intervalMs })) {
      last = progress.batch;
      if (view !== null) view.update(progress);
      else printInfo(progressLine(progress));
    }
  } finally {
    view?.done();
  }
  const batch = last!;
  const saved = batch.status === 'succeeded' || batch.status === 'expired' || batch.status === 'cancelled' || batch.status === 'failed' ? await saveResults(client, batch, options) : { output: null, errors: null };
  if (options.json === true) printJson({ ...batch, saved });
  else {
    printResult(summary(batch));
    for (const error of batch.errors?.data ?? []) printInfo(`  ${error.code}: ${error.message}`);
  }
  process.exitCode = BATCH_EXIT_CODES[batch.status] ?? 1;
}

export function registerBatch(program: Command, globals: () => GlobalOptions): void {
  const batch = program.command('batch').description('submit and follow JSONL batches on the running gateway');

  batch
    .command('submit <file>')
    .description('check a JSONL batch file, upload it and create the batch')
    .requiredOption('--endpoint <path>', 'target endpoint: /v1/chat/completions, /v1/embeddings or /v1/images/generations')
    .option('--window <duration>', 'completion window (24h, 90m, 2d…)', '24h')
    .option('--metadata <pairs...>', 'KEY=VALUE pairs kept on the batch (up to 16)')
    .option('--wait', 'follow the batch to its end (exit code from its status)')
    .option('--output <file>', 'with --wait: write the output file here (- for stdout)')
    .option('--errors <file>', 'with --wait: write the error file here')
    .option('--json', 'print the batch object')
    .addHelpText('after', '\nExit codes with --wait: 0 succeeded, 3 failed, 4 expired, 5 cancelled (1: error before that).\n\nExample:\n  igw batch submit requests.jsonl --endpoint /v1/chat/completions --wait --output results.jsonl')
    .action(async (file: string, options: FollowOptions & { endpoint: string; window: string; metadata?: string[]; wait?: boolean }) => {
      const checked = await validateBatchFile(file, options.endpoint);
      const metadata = parseMetadata(options.metadata);
      if ((options.output !== undefined || options.errors !== undefined) && options.wait !== true) {
        throw new UserError('--output and --errors need --wait', 'add --wait, or fetch later with: igw batch results ID --output FILE');
      }
      const client = clientOf(globals);
      if (options.json !== true) printInfo(`${file}: ${checked.rows} requests, ${checked.bytes} bytes; uploading`);
      const uploaded = await client.uploadFile<{ id: string }>(file, 'batch');
      const created = await client.postJson<BatchView>('/v1/batches', {
        input_file_id: uploaded.id,
        endpoint: options.endpoint,
        completion_window: options.window,
        ...(metadata === undefined ? {} : { metadata }),
      });
      if (options.wait === true) {
        if (options.json !== true) printInfo(`created ${created.id}`);
        return follow(client, created.id, options);
      }
      if (options.json === true) printJson(created);
      else printResult(created.id);
    });

  batch
    .command('list')
    .description("list this account's batches, newest first")
    .option('--limit <n>', 'how many (1-100)', '20')
    .option('--json', 'print the API response')
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
    .action(async (id: string, options: { json?: boolean }) => {
      const found = await clientOf(globals).getJson<BatchView>(`/v1/batches/${encodeURIComponent(id)}`);
      if (options.json === true) return printJson(found);
      const counts = found.request_counts;
      printResult(
        [
          `id          ${found.id}`,
          `status      ${found.status}`,
          `endpoint    ${found.endpoint}`,
          `requests    ${counts.total} (succeeded ${counts.succeeded}, errored ${counts.errored}, processing ${counts.processing})`,
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
    .description('follow a batch to its end (exit code from its status)')
    .option('--output <file>', 'write the output file here (- for stdout)')
    .option('--errors <file>', 'write the error file here')
    .option('--json', 'print the final batch object')
    .addHelpText('after', '\nExit codes: 0 succeeded, 3 failed, 4 expired, 5 cancelled (1: error).')
    .action(async (id: string, options: FollowOptions) => follow(clientOf(globals), id, options));

  batch
    .command('cancel <id>')
    .description('cancel a queued or running batch (finished rows are kept)')
    .option('--json', 'print the batch object')
    .action(async (id: string, options: { json?: boolean }) => {
      const cancelled = await clientOf(globals).postJson<BatchView>(`/v1/batches/${encodeURIComponent(id)}/cancel`);
      if (options.json === true) return printJson(cancelled);
      printResult(`${cancelled.id} ${cancelled.status}`);
    });

  batch
    .command('results <id>')
    .description('download the results of a finished batch (output to stdout unless --output)')
    .option('--output <file>', 'write the output file here (default: stdout)')
    .option('--errors <file>', 'write the error file here')
    .option('--json', 'write files only where asked and print a summary object')
    .action(async (id: string, options: FollowOptions) => {
      const client = clientOf(globals);
      const found = await client.getJson<BatchView>(`/v1/batches/${encodeURIComponent(id)}`);
      if (!TERMINAL.has(found.status)) throw new UserError(`${found.id} is ${found.status}; results are written when it ends`, `wait for it: igw batch wait ${found.id} --output FILE`);
      const output = options.output ?? (options.json === true ? undefined : '-');
      const saved = await saveResults(client, found, { ...(output === undefined ? {} : { output }), ...(options.errors === undefined ? {} : { errors: options.errors }) });
      if (options.json === true) printJson({ id: found.id, status: found.status, output_file_id: found.output_file_id, error_file_id: found.error_file_id, saved });
    });
}
