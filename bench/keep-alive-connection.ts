import net from 'node:net';

/** `status` 0: the connection failed or closed before the answer. */
export type Answered = (status: number, ms: number, retryAfter: string | null) => void;

/**
 * One keep-alive HTTP/1.1 connection carrying one request at a time, as a reverse proxy's upstream
 * connection does. Requests are written as prepared text and answers read just far enough to know
 * their status, `Retry-After` and length: a load generator built on this spends a small part of the
 * CPU node:http would, so on a machine shared with the server it is not the bottleneck. Enough for
 * mon's answers (a `Content-Length` body, none, or chunked); not a general client.
 */
export class KeepAliveConnection {
  private socket: net.Socket | null = null;
  private buffer: Buffer = Buffer.alloc(0);
  private pending: Answered | null = null;
  private sentAt = 0;
  private readonly host: string;
  private readonly port: number;

  constructor(host: string, port: number) {
    this.host = host;
    this.port = port;
  }

  get busy(): boolean {
    return this.pending !== null;
  }

  /** Opens the connection now, so that connecting is not part of the first request's time. */
  connect(): Promise<void> {
    const socket = this.open();
    return new Promise((resolve) => {
      socket.once('connect', () => resolve());
      socket.once('close', () => resolve());
    });
  }

  /** Sends one whole request (head and body); `done` hears the answer. */
  send(request: string, done: Answered): void {
    if (this.pending) throw new Error('one request at a time');
    const socket = this.socket ?? this.open();
    this.pending = done;
    this.sentAt = performance.now();
    socket.write(request, 'latin1');
  }

  close(): void {
    const socket = this.socket;
    this.socket = null;
    socket?.destroy();
  }

  private open(): net.Socket {
    const socket = net.connect({ host: this.host, port: this.port, noDelay: true });
    this.socket = socket;
    this.buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      // A connection closed here (close()) has already answered its request.
      if (this.socket !== socket) return;
      this.socket = null;
      this.finish(0, null);
    });
    return socket;
  }

  private received(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const headEnd = this.buffer.indexOf('\r\n\r\n');
    if (headEnd < 0) return;
    const head = this.buffer.toString('latin1', 0, headEnd);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    let end = headEnd + 4;
    if (length) end += Number(length[1]);
    else if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
      const last = this.buffer.indexOf('\r\n0\r\n\r\n', headEnd);
      if (last < 0) return;
      end = last + 7;
    }
    if (this.buffer.length < end) return;
    this.buffer = this.buffer.subarray(end);
    const status = Number(head.slice(9, 12));
    const retryAfter =
      status === 429 || status === 503 ? (/\r\nretry-after: *(\d+)/i.exec(head)?.[1] ?? null) : null;
    if (/\r\nconnection: *close/i.test(head)) this.close();
    this.finish(status, retryAfter);
  }

  private finish(status: number, retryAfter: string | null): void {
    const done = this.pending;
    if (!done) return;
    this.pending = null;
    done(status, performance.now() - this.sentAt, retryAfter);
  }
}
