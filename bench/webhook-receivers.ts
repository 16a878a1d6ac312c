import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The receivers of the notification benchmark, in their own process: `count` webhook endpoints that
 * answer 204 and note when each message arrived (wall clock) with the incident it is about. Tells the
 * parent its ports, then `done` once `expected` messages arrived, then the arrivals when asked.
 */
const count = Number(process.argv[2] ?? 5);
const expected = Number(process.argv[3] ?? 0);
const arrivals: { incident: string; at: number }[] = [];

const ports: number[] = [];
for (let i = 0; i < count; i++) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        data: { incident: { id: string } };
      };
      arrivals.push({ incident: body.data.incident.id, at });
      res.writeHead(204);
      res.end();
      if (arrivals.length === expected) process.send?.({ done: true });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  ports.push((server.address() as AddressInfo).port);
}
process.send?.({ ports });
process.on('message', () => process.send?.({ arrivals }));
process.on('disconnect', () => process.exit(0));
