import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';

/**
 * The server of bench/http-floor.ts, in a process of its own: `POST /e` read and answered 204 with
 * `Access-Control-Allow-Origin: *` and nothing else, by Node's HTTP server alone (argv `node`) or by
 * Fastify with a text/plain parser as mon's route has (argv `fastify`). Sends `{port}` once listening.
 */
const mode = process.argv[2];
if (mode === 'node') {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(204, { 'access-control-allow-origin': '*' });
      response.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
} else {
  const app = Fastify({ logger: false });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['text/plain', 'application/json'], { parseAs: 'string' }, (_r, body, done) =>
    done(null, body),
  );
  app.post('/e', (_request, reply) => {
    reply.header('access-control-allow-origin', '*').code(204).send();
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  process.send?.({ port: (app.server.address() as AddressInfo).port });
}
