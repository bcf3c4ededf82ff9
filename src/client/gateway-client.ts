import { UserError } from '../cli/user-error.js';

/** Typed HTTP client of igw's own API, for the CLI commands that talk to a running gateway. */
export class GatewayClient {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
  ) {}

  async getJson<T>(pathAndQuery: string): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${pathAndQuery}`, { headers: { authorization: `Bearer ${this.apiKey}` } });
    } catch (error) {
      throw new UserError(`no gateway answers at ${this.baseUrl} (${String((error as Error).cause ?? error)})`, 'start one with `igw serve`, or pass --base-url / set IGW_BASE_URL');
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new UserError(`${this.baseUrl} answered ${response.status} with a non-JSON body`, 'check that --base-url points at an igw gateway');
    }
    if (!response.ok) {
      const error = (body as { error?: { code?: string; message?: string } }).error;
      throw new UserError(`${error?.code ?? response.status}: ${error?.message ?? 'request failed'}`, error?.code?.startsWith('AUTH_') ? 'check --api-key / IGW_API_KEY (igw keys list)' : 'see the message above');
    }
    return body as T;
  }
}
