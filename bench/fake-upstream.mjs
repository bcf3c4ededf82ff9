// A minimal OpenAI-compatible upstream for benchmarks: fixed answers, no work, keep-alive.
import { createServer } from 'node:http';

const completion = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1700000000,
  model: 'bench-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'The quick brown fox jumps over the lazy dog.' }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 12, completion_tokens: 10, total_tokens: 22 },
});
const words = 'The quick brown fox jumps over the lazy dog again and again'.split(' ');
const chunk = (delta, finish = null) => `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1700000000, model: 'bench-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const stream =
  chunk({ role: 'assistant', content: '' }) +
  words.map((word) => chunk({ content: `${word} ` })).join('') +
  chunk({}, 'stop') +
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1700000000, model: 'bench-model', choices: [], usage: { prompt_tokens: 12, completion_tokens: 12, total_tokens: 24 } })}\n\n` +
  'data: [DONE]\n\n';
const embedding = JSON.stringify({ object: 'list', model: 'bench-embed', data: [{ object: 'embedding', index: 0, embedding: Array.from({ length: 256 }, (_, i) => Math.sin(i)) }], usage: { prompt_tokens: 8, total_tokens: 8 } });

const server = createServer({ keepAliveTimeout: 60000 }, (request, response) => {
  let body = '';
  request.on('data', (part) => (body += part));
  request.on('end', () => {
    if (request.url.endsWith('/embeddings')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end(embedding);
    }
    if (body.includes('"stream":true')) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      return response.end(stream);
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(completion);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
