import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createTestServer, tempDir } from '../testing.ts';
import { createSites } from './sites.ts';

test('known sites are the file’s and the table’s, the file winning, renewed by refresh', async () => {
  const work = tempDir();
  const configPath = join(work.dir, 'mon.toml');
  writeFileSync(configPath, '[[service]]\nname = "shop"\nsites = ["shop.example"]\n');
  const server = await createTestServer({ configPath });
  after(async () => {
    await server.dispose();
    work.remove();
  });
  const sites = createSites(server.deps);
  assert.deepEqual(sites.find('shop.example'), { domain: 'shop.example', service: 'shop', fromFile: true });
  assert.equal(sites.find('blog.example'), null);
  await server.deps.store.writer.run((db) => {
    db.prepare('INSERT INTO sites (domain, service, created_at) VALUES (?, ?, 0), (?, ?, 0)').run(
      'blog.example',
      'blog',
      'shop.example',
      'other',
    );
  });
  sites.refresh();
  assert.deepEqual(
    sites.list().map((s) => `${s.domain}:${s.service}:${s.fromFile}`),
    ['blog.example:blog:false', 'shop.example:shop:true'],
  );
  // A removal drops one at once; a refresh reads the table again.
  sites.forget('blog.example');
  assert.equal(sites.find('blog.example'), null);
  sites.refresh();
  assert.equal(sites.find('blog.example')?.service, 'blog');
});
