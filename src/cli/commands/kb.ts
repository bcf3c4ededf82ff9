import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { GatewayApiError, GatewayClient } from '../../client/gateway-client.js';
import { createPathFilter } from '../../kb/filter.js';
import { isGatewayFault } from '../../kb/gateway-fault.js';
import { KbRemote } from '../../kb/remote.js';
import { plainLine, summaryLine } from '../../kb/report.js';
import { RescanRetry } from '../../kb/rescan-retry.js';
import { snippet } from '../../kb/snippet.js';
import { FolderSync, type SyncEvent } from '../../kb/sync.js';
import { watchFolder } from '../../kb/watch.js';
import { resolveApiKey, resolveBaseUrl, type GlobalOptions } from '../global-options.js';
import { confirmOrRefuse } from '../confirm.js';
import { formatTime, printJson, printResult, renderTable } from '../output.js';
import { interactive } from '../ui/terminal.js';
import { UserError } from '../user-error.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerKb(program: Command, globals: () => GlobalOptions): void {
  const kb = program
    .command('kb')
    .description('knowledge bases: vector stores fed from folders (asks the running gateway; the key needs vault access)')
    .addHelpText('after', '\nExample:\n  igw kb create notes\n  igw kb sync ~/notes --store notes --watch\n  igw kb search notes "how do I rotate a key"');
  const remote = () => new KbRemote(new GatewayClient(resolveBaseUrl(globals()), resolveApiKey(globals())));

  kb.command('create')
    .description('create a vector store (names are unique: a name already in use is refused)')
    .argument('<name>', 'store name')
    .option('--embedding-model <id>', 'embeddings model of the catalog to index with (igw models --meta lists them); fixed for the store\'s life')
    .option('--json', 'print the vector store object')
    .addHelpText('after', '\nExample:\n  igw kb create notes --embedding-model local-embed --json')
    .action(async (name: string, options: { embeddingModel?: string; json?: boolean }) => {
      const client = remote();
      // `--store NAME` must keep meaning one store: a second store of that name is refused.
      const existing = await client.storesNamed(name);
      if (existing.length > 0) {
        throw new UserError(`a vector store named "${name}" already exists: ${existing[0]!.id}`, `use it with --store ${JSON.stringify(name)}, pick another name, or remove it first: igw kb rm ${existing[0]!.id}`);
      }
      let store;
      try {
        store = await client.createStore(name, options.embeddingModel);
      } catch (error) {
        if (error instanceof GatewayApiError && error.status === 400 && options.embeddingModel !== undefined) {
          throw new UserError(`cannot index with "${options.embeddingModel}": ${error.reason.replace(/^[^:]*: /, '')}`, 'pick an embeddings model from: igw models --meta');
        }
        throw error;
      }
      if (options.json === true) return printJson(store);
      printResult(store.id);
    });

  kb.command('list')
    .description('list vector stores')
    .option('--json', 'print the store objects')
    .addHelpText('after', '\nExample:\n  igw kb list')
    .action(async (options: { json?: boolean }) => {
      const stores = await remote().listStores();
      if (options.json === true) return printJson(stores);
      printResult(
        renderTable(
          ['ID', 'NAME', 'STATUS', 'FILES', 'INDEXED', 'FAILED', 'BYTES', 'CREATED'],
          stores.map((store) => [
            store.id,
            store.name ?? '',
            // A store whose ingestion is over is not "completed" when some files failed.
            store.status === 'completed' && (store.file_counts?.failed ?? 0) > 0 ? 'completed with failures' : store.status,
            String(store.file_counts?.total ?? 0),
            String(store.file_counts?.completed ?? 0),
            String(store.file_counts?.failed ?? 0),
            String(store.usage_bytes ?? 0),
            formatTime(store.created_at),
          ]),
        ),
      );
    });

  kb.command('rm')
    .description('delete a vector store (by id or name) with its index; asks first on a terminal')
    .argument('<store>', 'store id or name')
    .option('-y, --yes', 'delete without asking (needed when not on a terminal)')
    .addHelpText('after', '\nExample:\n  igw kb rm notes\n  igw kb rm notes --yes   # scripts')
    .action(async (idOrName: string, options: { yes?: boolean }) => {
      const client = remote();
      const store = await client.resolveStore(idOrName);
      const files = store.file_counts?.total ?? 0;
      await confirmOrRefuse(`Delete vector store "${store.name}" (${store.id}, ${files} file${files === 1 ? '' : 's'})? This cannot be undone.`, {
        yes: options.yes,
        retryWith: `igw kb rm ${store.id} --yes`,
      });
      await client.deleteStore(store.id);
      printResult(`deleted ${store.id}`);
    });

  kb.command('search')
    .description('search a vector store by meaning')
    .argument('<store>', 'store id or name')
    .argument('<query>', 'what to look for')
    .option('-n <count>', 'how many results (1-50)', '10')
    .option('--filter <json>', 'attribute filter, e.g. {"type":"eq","key":"path","value":"a.md"}')
    .option('--json', 'print the search results object')
    .addHelpText('after', '\nExample:\n  igw kb search notes "rotate a key" -n 3 --filter \'{"type":"eq","key":"path","value":"ops/keys.md"}\'')
    .action(async (idOrName: string, query: string, options: { n: string; filter?: string; json?: boolean }) => {
      const count = Number(options.n);
      if (!Number.isInteger(count) || count < 1 || count > 50) throw new UserError(`invalid -n "${options.n}"`, 'use a whole number from 1 to 50');
      let filters: unknown;
      if (options.filter !== undefined) {
        try {
          filters = JSON.parse(options.filter);
        } catch {
          throw new UserError('--filter is not valid JSON', 'pass a filter such as \'{"type":"eq","key":"path","value":"a.md"}\'');
        }
      }
      const client = remote();
      const store = await client.resolveStore(idOrName);
      const results = await client.search(store.id, query, count, filters);
      if (options.json === true) return printJson(results);
      if (results.data.length === 0) return printResult('no results');
      printResult(
        results.data
          .map((hit, index) => {
            const where = typeof hit.attributes?.['path'] === 'string' ? hit.attributes['path'] : hit.filename;
            const text = hit.content.map((part) => part.text).join(' ');
            return `${index + 1}. ${where}  (score ${hit.score.toFixed(3)})\n   ${snippet(text, query)}`;
          })
          .join('\n'),
      );
    });

  kb.command('sync')
    .description('mirror a folder into a vector store: upload what changed, follow renames, remove what is gone')
    .argument('<folder>', 'folder to sync')
    .requiredOption('--store <store>', 'store id or name')
    .option('--watch', 'keep running and follow changes until Ctrl-C')
    .option('--include <glob>', 'only files matching (repeatable), e.g. "**/*.md"', collect)
    .option('--exclude <glob>', 'skip files or folders matching (repeatable), e.g. "drafts/**"', collect)
    .option('--json', 'one JSON event per line on stdout')
    .addHelpText(
      'after',
      '\nExamples:\n  igw kb sync ./docs --store docs --include "**/*.md" --exclude "drafts/**"\n  igw kb sync ./docs --store docs --watch --json | jq -c \'select(.type=="failed")\'\n\nEach store file carries the attributes path and sha256: re-running uploads only what changed.\n.gitignore files are honoured. Exit code 1 (naming the files) when any file failed.',
    )
    .action(async (folder: string, options: { store: string; watch?: boolean; include?: string[]; exclude?: string[]; json?: boolean }) => {
      const root = path.resolve(folder);
      try {
        if (!(await stat(root)).isDirectory()) throw new UserError(`${folder} is not a folder`, 'pass the folder to sync');
      } catch (error) {
        if (error instanceof UserError) throw error;
        throw new UserError(`cannot read ${folder} (${(error as NodeJS.ErrnoException).code ?? String(error)})`, 'check the path');
      }
      const client = remote();
      const store = await client.resolveStore(options.store);
      await runSync(client, store.id, root, options);
    });
}

async function runSync(client: KbRemote, storeId: string, root: string, options: { watch?: boolean; include?: string[]; exclude?: string[]; json?: boolean }): Promise<void> {
  const started = Date.now();
  const json = options.json === true;
  const tty = interactive(process.stdout, { json });
  let view: { update(event: SyncEvent): void; close(): void } | null = null;
  if (tty) {
    const { startSyncView } = await import('../ui/kb-sync-view.js');
    view = startSyncView(root);
  }
  const emit = (event: SyncEvent) => {
    if (json) process.stdout.write(`${JSON.stringify(event)}\n`);
    else if (view !== null) view.update(event);
    else {
      const line = plainLine(event);
      if (line !== null) process.stdout.write(`${line}\n`);
    }
  };
  const filter = createPathFilter(root, { include: options.include ?? [], exclude: options.exclude ?? [] });
  // Watch mode: one pass at a time; bursts and rescans arriving meanwhile wait their turn.
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (pass: () => Promise<void>) => {
    queue = queue.then(async () => {
      if (sync.stopped) return;
      const faultsBefore = sync.gatewayFaults;
      try {
        await pass();
        if (sync.gatewayFaults === faultsBefore) retry.succeeded();
      } catch (error) {
        // The gateway went away mid-pass: not a file's failure; the folder is scanned again later.
        if (isGatewayFault(error)) retry.request();
        else emit({ type: 'failed', path: '.', error: error instanceof Error ? error.message : String(error) });
      }
    });
  };
  const retry = new RescanRetry(
    () => enqueue(() => sync.fullSync()),
    (waitMs) => emit({ type: 'retrying', in_ms: waitMs }),
  );
  const sync = new FolderSync(client, storeId, root, filter, emit, () => {
    if (options.watch === true) retry.request();
  });

  let interrupted = false;
  let wake: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (wake = resolve));
  const onSignal = () => {
    if (interrupted) return;
    interrupted = true;
    sync.stop();
    wake();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    await sync.fullSync();
    if (options.watch === true && !interrupted) {
      const watcher = watchFolder(root, filter, (burst) => enqueue(() => (burst === 'rescan' ? sync.fullSync() : sync.syncPaths(burst))));
      await watcher.ready;
      emit({ type: 'watching', folder: root });
      await stopped;
      retry.stop();
      await watcher.close();
      await queue;
      // Ctrl-C ends a watch normally: not an interruption of unfinished work.
      interrupted = false;
    }
    await sync.settled();
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  retry.stop();
  const failures = [...sync.failures].map(([failedPath, error]) => ({ path: failedPath, error }));
  const waiting = [...sync.waiting].map(([waitingPath, error]) => ({ path: waitingPath, error }));
  const summary: SyncEvent = {
    type: 'summary',
    ...sync.totals,
    failed: failures.length,
    failures,
    waiting: waiting.length,
    waiting_files: waiting,
    seconds: (Date.now() - started) / 1000,
    interrupted,
  };
  if (json) emit(summary);
  else if (view !== null) {
    view.update(summary);
    view.close();
  } else process.stdout.write(`${summaryLine(summary)}\n`);
  if (failures.length > 0) {
    for (const failure of failures) process.stderr.write(`igw: ${failure.path} failed: ${failure.error}\n`);
    process.stderr.write(`igw: ${failures.length} file(s) failed; fix them and run the same command again (only what is missing is sent)\n`);
    process.exitCode = 1;
  }
  if (waiting.length > 0) {
    // Not the files' fault: say so, and do not ask the user to fix them.
    process.stderr.write(`igw: ${waiting.length} file(s) not synced because the gateway could not take them (${waiting[0]!.error}); run the same command again once it answers\n`);
    process.exitCode = 1;
  }
  if (failures.length === 0 && waiting.length === 0 && interrupted) {
    process.stderr.write('igw: interrupted; run the same command again to resume (what is done is kept)\n');
    process.exitCode = 130;
  }
}
