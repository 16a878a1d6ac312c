import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostSymptomsOf } from './host-events.ts';

test("a container alert that opened the incident makes that container's restarts symptoms; one that joined does not", () => {
  const opened = hostSymptomsOf([
    { key: 'container:web-1:api', host: 'web-1' },
    { key: 'host:web-1:cpu', host: 'web-1' },
    { key: 'agent:web-1', host: 'web-1' },
  ]);
  assert.deepEqual(opened, [
    { host: 'web-1', kind: 'restart', subject: 'api' },
    { host: 'web-1', kind: 'threshold', subject: 'cpu' },
    { host: 'web-1', kind: 'silent', subject: 'agent' },
  ]);
  // A check went down first and the crash-looping container joined: its restarts may be the cause.
  const joined = hostSymptomsOf([
    { key: 'check:0123456789abcdef', host: null },
    { key: 'container:web-1:api', host: 'web-1' },
  ]);
  assert.deepEqual(joined, []);
});
