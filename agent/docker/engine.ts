import http from 'node:http';

/**
 * GET requests to the Docker Engine API over its unix socket, and nothing else: the agent only reads
 * (the socket itself would let any client create or remove containers; mon never sends anything but
 * GET). One keep-alive connection pool, at most `concurrency` requests at once, each with its own
 * deadline, and a bounded body.
 */
export type EngineClient = {
  /**
   * The JSON body of `GET path`, or an `EngineError`. 404 answers resolve as `{status: 404}` so that a
   * container removed between the list and its inspect is told apart from a runtime that fails.
   */
  get(path: string): Promise<{ status: number; body: unknown }>;
  /** Closes the pooled connections. */
  close(): void;
};

export class EngineError extends Error {}

/** Longest body read (a list of 5,000 containers is about 10 MiB). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export function createEngineClient(options: {
  socketPath: string;
  timeoutMs: number;
  concurrency: number;
}): EngineClient {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  let running = 0;
  const waiting: (() => void)[] = [];

  /** Waits for one of the `concurrency` slots; the returned function gives it to the next waiting, or back. */
  const slot = async (): Promise<() => void> => {
    if (running < options.concurrency) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    return () => {
      const next = waiting.shift();
      if (next) next();
      else running--;
    };
  };

  /** One request, on a kept connection or (`fresh`) a new one of its own. */
  const once = (path: string, fresh = false) =>
    new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const req = http.request({
        socketPath: options.socketPath,
        path,
        method: 'GET',
        agent: fresh ? false : agent,
        headers: { accept: 'application/json' },
      });
      const timer = setTimeout(() => req.destroy(new Error('no answer in time')), options.timeoutMs);
      const fail = (error: Error & { code?: string }) => {
        clearTimeout(timer);
        const stale = req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
        reject(Object.assign(new EngineError(`GET ${path}: ${error.message}`), { stale }));
      };
      req.on('error', fail);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BODY_BYTES) {
            req.destroy(new Error(`body over ${MAX_BODY_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', fail);
        res.on('end', () => {
          clearTimeout(timer);
          const status = res.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString('utf8');
          if (status === 404) return resolve({ status, body: null });
          if (status !== 200) return fail(new Error(`answered ${status}${messageOf(text)}`));
          try {
            resolve({ status, body: JSON.parse(text) });
          } catch {
            fail(new Error('answered a body that is not JSON'));
          }
        });
      });
      req.end();
    });

  return {
    async get(path) {
      const release = await slot();
      try {
        try {
          return await once(path);
        } catch (error) {
          // A kept connection the daemon closed just then fails at once: ask again on a new one.
          if ((error as { stale?: boolean }).stale) return await once(path, true);
          throw error;
        }
      } finally {
        release();
      }
    },
    close: () => agent.destroy(),
  };
}

/** `: <message>` of an Engine API error body (`{"message": "..."}`), when there is one. */
function messageOf(text: string): string {
  try {
    const body: unknown = JSON.parse(text);
    if (body && typeof body === 'object' && 'message' in body && typeof body.message === 'string') {
      return `: ${body.message.slice(0, 200)}`;
    }
  } catch {}
  return '';
}
