import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { BATCH_ENDPOINTS, type BatchEndpoint } from '../../batches/batch-record.js';
import { checkBatchInput, modelProblems, problemText, type InputProblem, type ListedModel } from '../../batches/input-check.js';
import { MAX_BATCH_FILE_BYTES } from '../../batches/input-rows.js';
import { readJsonlLines } from '../../batches/jsonl.js';
import { GatewayApiError, type GatewayClient } from '../../client/gateway-client.js';
import { didYouMean } from '../../util/did-you-mean.js';
import { formatBytes, plural } from '../format.js';
import { printInfo } from '../output.js';
import { ProblemsError, UserError } from '../user-error.js';

/** Problems printed before the summary line; the count says how many more there are. */
const SHOWN_PROBLEMS = 100;

/**
 * Checks a batch input file before uploading it (DESIGN §1 "local checks"): every problem of the
 * file in one pass, each as FILE:LINE, with the gateway's own rules (src/batches/input-check)
 * and its model list, so a file is fixed without a round trip per problem. The request count
 * limit is the server's to enforce (its config may differ from the default).
 */
export async function validateBatchFile(filePath: string, endpoint: string, client: GatewayClient): Promise<{ rows: number; bytes: number }> {
  if (!(BATCH_ENDPOINTS as readonly string[]).includes(endpoint)) {
    throw new UserError(`unsupported batch endpoint ${JSON.stringify(endpoint)}.${didYouMean(endpoint, BATCH_ENDPOINTS)}`, `use one of ${BATCH_ENDPOINTS.join(', ')}`);
  }
  let bytes: number;
  try {
    bytes = (await stat(filePath)).size;
  } catch (error) {
    throw new UserError(`cannot read ${filePath} (${(error as NodeJS.ErrnoException).code ?? String(error)})`, 'check the path');
  }
  if (bytes > MAX_BATCH_FILE_BYTES) throw new UserError(`${filePath} is ${formatBytes(bytes)}; a batch input may be at most 105 MiB`, 'split it into several files');
  const checked = await checkBatchInput(readJsonlLines(createReadStream(filePath), MAX_BATCH_FILE_BYTES), endpoint as BatchEndpoint);
  // Warnings (fields the gateway drops) are said on stderr and do not stop the upload.
  const problems: InputProblem[] = checked.problems.filter((problem) => problem.warning !== true);
  const warnings = checked.problems.filter((problem) => problem.warning === true);
  for (const warning of warnings.slice(0, SHOWN_PROBLEMS)) printInfo(`${problemText(filePath, warning)} (warning)`);
  if (warnings.length > SHOWN_PROBLEMS) printInfo(`… and ${plural(warnings.length - SHOWN_PROBLEMS, 'more warning')}`);
  if (checked.models.size > 0) {
    try {
      problems.push(...modelProblems(checked.models, await listModels(client), endpoint as BatchEndpoint));
    } catch (error) {
      // A key may run batches without the scope to list models: the gateway checks them per row.
      if (error instanceof GatewayApiError && error.code === 'AUTH_1015') {
        printInfo(`${filePath}: the models were not checked (this key may not list models: scope inference.models); the gateway checks them per row`);
        return finish(checked.rows, bytes, problems, filePath);
      }
      // No gateway to ask: the file's own problems are still worth reporting in this run.
      if (!(error instanceof UserError) || problems.length === 0) throw error;
      problems.push({ line: null, message: `the models were not checked (${error.message})` });
    }
  }
  return finish(checked.rows, bytes, problems, filePath);
}

/** The file's size and request count when it has no problem; else every problem, as one user error. */
function finish(rows: number, bytes: number, problems: InputProblem[], filePath: string): { rows: number; bytes: number } {
  if (problems.length === 0) return { rows, bytes };
  problems.sort((a, b) => (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER));
  const shown = problems.slice(0, SHOWN_PROBLEMS).map((problem) => problemText(filePath, problem));
  if (problems.length > SHOWN_PROBLEMS) shown.push(`… and ${plural(problems.length - SHOWN_PROBLEMS, 'more problem')}`);
  const lines = new Set(problems.map((problem) => problem.line));
  throw new ProblemsError(shown, `${plural(problems.length, 'problem')} in ${filePath} (${plural(lines.size, 'line')}); nothing was uploaded`, 'fix them and submit again');
}

/** The models this key may use, with their types (GET /v1/models?include_meta=true). */
async function listModels(client: GatewayClient): Promise<ListedModel[]> {
  const page = await client.getJson<{ data: Array<{ id: string; _meta?: { type?: string } }> }>('/v1/models?include_meta=true');
  return page.data.map((model) => ({ id: model.id, type: model._meta?.type }));
}
