import { openAsBlob } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { UserError } from '../cli/user-error.js';
import { givenCredential, type ApiCredential } from './credential.js';

/** Typed HTTP client of igw's own API, for the CLI commands that talk to a running gateway. */
export class GatewayClient {
  private readonly credential: ApiCredential;

  constructor(
    private readonly baseUrl: string,
    credential: ApiCredential | string,
  ) {
    this.credential = typeof credential === 'string' ? givenCredential(credential) : credential;
  }

  /** One request; a 401 on the CLI's own key (revoked meanwhile) is retried once with a fresh one. */
  private async send(method: string, pathAndQuery: string, body?: RequestInit['body'], headers: Record<string, string> = {}): Promise<Response> {
    const key = await this.credential.key();
    const response = await this.fetchWith(key, method, pathAndQuery, body, headers);
    if (response.status !== 401 || this.credential.renew === undefined) return response;
    await response.body?.cancel();
    return this.fetchWith(await this.credential.renew(key), method, pathAndQuery, body, headers);
  }

  private async fetchWith(key: string, method: string, pathAndQuery: string, body: RequestInit['body'] | undefined, headers: Record<string, string>): Promise<Response> {
    try {
      return await fetch(`${this.baseUrl}${pathAndQuery}`, { method, headers: { authorization: `Bearer ${key}`, ...headers }, ...(body === undefined ? {} : { body }) });
    } catch (error) {
      throw new GatewayUnreachableError(`no gateway answers at ${this.baseUrl} (${String((error as Error).cause ?? error)})`, 'start one with `igw serve`, or pass --base-url / set IGW_BASE_URL');
    }
  }

  private async json<T>(response: Response): Promise<T> {
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new UserError(`${this.baseUrl} answered ${response.status} with a non-JSON body`, 'check that --base-url points at an igw gateway');
    }
    if (!response.ok) throw apiError(response.status, body);
    return body as T;
  }

  async getJson<T>(pathAndQuery: string): Promise<T> {
    return this.json<T>(await this.send('GET', pathAndQuery));
  }

  async postJson<T>(pathAndQuery: string, body: unknown = undefined): Promise<T> {
    return body === undefined
      ? this.json<T>(await this.send('POST', pathAndQuery))
      : this.json<T>(await this.send('POST', pathAndQuery, JSON.stringify(body), { 'content-type': 'application/json' }));
  }

  async deleteJson<T>(pathAndQuery: string): Promise<T> {
    return this.json<T>(await this.send('DELETE', pathAndQuery));
  }

  /** POST /v1/files: the file is streamed from disk (never read whole into memory). */
  async uploadFile<T>(filePath: string, purpose: string): Promise<T> {
    const form = new FormData();
    form.append('purpose', purpose);
    form.append('file', await openAsBlob(filePath), path.basename(filePath));
    return this.json<T>(await this.send('POST', '/v1/files', form));
  }

  /** A streamed GET (file contents). */
  async download(pathAndQuery: string): Promise<Readable> {
    const response = await this.send('GET', pathAndQuery);
    if (!response.ok || response.body === null) {
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: reported by status below
      }
      throw apiError(response.status, body);
    }
    return Readable.fromWeb(response.body as unknown as WebReadableStream<Uint8Array>);
  }
}

/** Nothing answered (connection refused, reset, DNS): the gateway is down or restarting. */
export class GatewayUnreachableError extends UserError {
  constructor(message: string, nextStep: string) {
    super(message, nextStep);
    this.name = 'GatewayUnreachableError';
  }
}

/** The gateway's error envelope as a one-line user error (code: message). */
export class GatewayApiError extends UserError {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
    readonly details: Record<string, unknown> | undefined,
  ) {
    super(`${code ?? status}: ${message}`, nextStepFor(code, status));
    this.name = 'GatewayApiError';
  }
}

/** What to do about a gateway refusal, by its code (the message says what went wrong). */
export function nextStepFor(code: string | undefined, status: number): string {
  if (code === 'AUTH_1007' || code === 'AUTH_1008') return 'check --api-key / IGW_API_KEY (igw keys list shows the keys)';
  if (code === 'AUTH_1028' || code === 'INFERENCE_3108') return 'wait a moment and run the command again';
  if (code?.startsWith('AUTH_') === true) return 'use a key that has this access (igw keys create --help lists --scopes and --vault)';
  if (code?.startsWith('BILLING_') === true) return 'top up the account with igw accounts set ACCOUNT --credits N, then run the command again';
  if (code === 'INFERENCE_3001') return 'list the models with: igw models';
  if (code?.startsWith('INFERENCE_31') === true) return 'check the provider (the igw serve log shows the upstream failure), then run the command again';
  if (code?.startsWith('RESOURCE_') === true) return 'check the id (each list command shows them, e.g. igw batch list)';
  if (code?.startsWith('VALIDATION_') === true || code?.startsWith('INFERENCE_3') === true) return 'fix the request and run the command again';
  return status >= 500 ? 'run the command again; the igw serve log has the details' : 'check the command and run it again';
}

function apiError(status: number, body: unknown): GatewayApiError {
  const error = (body as { error?: { code?: string; message?: string; details?: Record<string, unknown> } } | undefined)?.error;
  return new GatewayApiError(status, error?.code, error?.message ?? 'request failed', error?.details);
}
