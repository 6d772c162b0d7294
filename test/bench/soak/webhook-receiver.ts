import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  webhookId: string;
  body: string;
  type: string;
  data: Record<string, unknown>;
}

/** A subscriber on 127.0.0.1 that answers 200 and keeps every delivery (duplicates included). */
export async function startReceiver() {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const event = JSON.parse(body) as { type: string; data: Record<string, unknown> };
      deliveries.push({ webhookId: String(req.headers['webhook-id']), body, type: event.type, data: event.data });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    deliveries,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
