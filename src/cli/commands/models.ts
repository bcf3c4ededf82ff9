import type { Command } from 'commander';
import { GatewayClient } from '../../client/gateway-client.js';
import { resolveApiKey, resolveBaseUrl, type GlobalOptions } from '../global-options.js';
import { printJson, printResult, renderTable } from '../output.js';

interface ModelEntry {
  id: string;
  owned_by: string;
  _meta?: { type?: string; context_length?: number; pricing?: Record<string, number | string>; capabilities?: Record<string, boolean> };
}

export function registerModels(program: Command, globals: () => GlobalOptions): void {
  program
    .command('models')
    .description('list the models your key can use (asks the running gateway)')
    .option('--meta', 'include type, context length, capabilities and pricing')
    .option('--json', 'print the API response')
    .addHelpText('after', '\nExamples:\n  igw models --meta                          # the CLI\'s own key, on the gateway\'s machine\n  IGW_API_KEY=sk-svc-... igw models --json   # any key, any gateway (--base-url)')
    .action(async (options: { meta?: boolean; json?: boolean }) => {
      const client = new GatewayClient(resolveBaseUrl(globals()), resolveApiKey(globals()));
      const list = await client.getJson<{ data: ModelEntry[] }>(`/v1/models${options.meta === true ? '?include_meta=true' : ''}`);
      if (options.json === true) return printJson(list);
      if (options.meta !== true) return printResult(renderTable(['ID', 'OWNED BY'], list.data.map((model) => [model.id, model.owned_by])));
      printResult(
        renderTable(
          ['ID', 'TYPE', 'CONTEXT', 'CAPABILITIES', 'INPUT €/M', 'OUTPUT €/M'],
          list.data.map((model) => {
            const meta = model._meta ?? {};
            const capabilities = Object.entries(meta.capabilities ?? {})
              .filter(([, on]) => on)
              .map(([name]) => name)
              .join(',');
            return [
              model.id,
              meta.type ?? '',
              meta.context_length === undefined ? '-' : String(meta.context_length),
              capabilities || '-',
              meta.pricing?.['input_cost_per_million_eur'] === undefined ? 'free' : String(meta.pricing['input_cost_per_million_eur']),
              meta.pricing?.['output_cost_per_million_eur'] === undefined ? '-' : String(meta.pricing['output_cost_per_million_eur']),
            ];
          }),
        ),
      );
    });
}
