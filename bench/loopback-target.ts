import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The checked server of the scheduler benchmark, in its own process: answers 200 to everything. */
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('ok');
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => process.send?.((server.address() as AddressInfo).port));
process.on('disconnect', () => process.exit(0));
