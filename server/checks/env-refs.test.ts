// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are literal ${NAME} references
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expandAll, expandEnvRefs } from './env-refs.ts';

test('expands ${NAME} from the environment', () => {
  assert.deepEqual(expandEnvRefs('Bearer ${TOKEN}', { TOKEN: 'abc' }), { ok: true, value: 'Bearer abc' });
  assert.deepEqual(expandEnvRefs('${A}-${B}', { A: '1', B: '2' }), { ok: true, value: '1-2' });
  assert.deepEqual(expandEnvRefs('cost $5 and $HOME', {}), { ok: true, value: 'cost $5 and $HOME' });
  assert.deepEqual(expandEnvRefs('empty:${E}', { E: '' }), { ok: true, value: 'empty:' });
});

test('a missing variable is named', () => {
  assert.deepEqual(expandEnvRefs('x ${NOPE} ${ALSO}', {}), { ok: false, missing: 'NOPE' });
  assert.deepEqual(expandAll({ a: 'fine', b: '${GONE}' }, {}), { ok: false, missing: 'GONE' });
  assert.deepEqual(expandAll({ a: '${X}' }, { X: 'y' }), { ok: true, values: { a: 'y' } });
});
