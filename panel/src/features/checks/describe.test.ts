import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readOnlyReason, targetText } from './describe.ts';

test('a check reads as its target; a heartbeat as its schedule', () => {
  assert.equal(targetText({ kind: 'tcp', target: 'db:5432', cron: null, everyMs: 60_000 }), 'db:5432');
  assert.equal(targetText({ kind: 'heartbeat', target: null, cron: null, everyMs: 86_400_000 }), 'every 1 d');
  assert.equal(
    targetText({ kind: 'heartbeat', target: null, cron: '0 3 * * *', everyMs: null }),
    'cron 0 3 * * *',
  );
});

test('checks from files are read-only, with the reason', () => {
  assert.equal(readOnlyReason({ managed: false, hostDefined: false }, null), null);
  assert.match(
    readOnlyReason({ managed: true, hostDefined: false }, null) ?? '',
    /^This check is defined in mon\.toml\./,
  );
  assert.match(
    readOnlyReason({ managed: false, hostDefined: true }, 'web1') ?? '',
    /checks\.toml on host web1\./,
  );
});
