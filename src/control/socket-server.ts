import { chmod, unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { AdminError } from '../admin/admin-error.js';
import type { Logger } from '../util/logger.js';
import type { AdminOperationName, AdminOperations } from './admin-operations.js';

/** Wire of the admin socket: one JSON request per line, one JSON reply per line. */
export interface ControlRequest {
  op: AdminOperationName;
  args: unknown;
}

export type ControlReply = { ok: true; result: unknown } | { ok: false; error: { message: string; next_step: string } };

/** The admin API of a running gateway: `igw keys …` / `igw accounts …` apply here at once. */
export async function startControlServer(socketPath: string, operations: AdminOperations, logger: Logger): Promise<{ close(): Promise<void> }> {
  // We hold the data-dir lock, so a socket file left here belongs to a dead server.
  await unlink(socketPath).catch(() => undefined);
  const connections = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
    socket.setEncoding('utf8');
    let buffer = '';
    socket.on('data', (text: string) => {
      buffer += text;
      let newline = buffer.indexOf('\n');
      while (newline !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        void answer(line).then((reply) => socket.write(`${JSON.stringify(reply)}\n`));
        newline = buffer.indexOf('\n');
      }
    });
    socket.on('error', () => socket.destroy());
  });

  async function answer(line: string): Promise<ControlReply> {
    try {
      const request = JSON.parse(line) as ControlRequest;
      const operation = operations[request.op] as ((args: unknown) => unknown) | undefined;
      if (operation === undefined) return { ok: false, error: { message: `unknown operation ${String(request.op)}`, next_step: 'use the same igw version for the CLI and the server' } };
      return { ok: true, result: await operation(request.args ?? {}) };
    } catch (error) {
      if (error instanceof AdminError) return { ok: false, error: { message: error.message, next_step: error.nextStep } };
      logger.error('admin operation failed', { error: String(error) });
      return { ok: false, error: { message: String((error as Error).message ?? error), next_step: 'see the server log' } };
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  await chmod(socketPath, 0o600);
  return {
    async close() {
      for (const socket of connections) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await unlink(socketPath).catch(() => undefined);
    },
  };
}
