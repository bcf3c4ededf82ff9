import type OpenAI from 'openai';
import { toFile } from 'openai';

/** One batch input line for the chat endpoint. */
export function chatLine(customId: string, content: string, model = 'local-echo'): string {
  return JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content }] } });
}

export function chatLines(count: number, model = 'local-echo', prefix = 'row'): string {
  return Array.from({ length: count }, (_, index) => chatLine(`${prefix}-${index}`, `hello ${index}`, model)).join('\n');
}

export async function uploadBatchFile(client: OpenAI, text: string | Buffer, name = 'input.jsonl', purpose: 'batch' | 'user_data' = 'batch'): Promise<string> {
  return (await client.files.create({ file: await toFile(typeof text === 'string' ? Buffer.from(text) : text, name), purpose })).id;
}

/** Polls until the batch is in one of `statuses` (default: any terminal one). */
export async function waitForBatch(client: OpenAI, id: string, statuses: string[] = ['succeeded', 'failed', 'expired', 'cancelled'], timeoutMs = 20_000): Promise<OpenAI.Batches.Batch> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const batch = await client.batches.retrieve(id);
    if (statuses.includes(batch.status)) return batch;
    if (Date.now() > deadline) throw new Error(`batch ${id} still ${batch.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function fileLines(client: OpenAI, id: string | null | undefined): Promise<any[]> {
  if (!id) return [];
  const text = await (await client.files.content(id)).text();
  return text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
}
