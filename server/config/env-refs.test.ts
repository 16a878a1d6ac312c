// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are literal ${NAME} references
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expandAll, expandReferences, notSet, referencedNames } from './env-refs.ts';

test('expands ${NAME} from the environment', () => {
  assert.deepEqual(expandReferences('Bearer ${TOKEN}', { TOKEN: 'abc' }), {
    value: 'Bearer abc',
    missing: [],
  });
  assert.deepEqual(expandReferences('${A}-${B}', { A: '1', B: '2' }), { value: '1-2', missing: [] });
  assert.deepEqual(expandReferences('cost $5 and $HOME', {}), { value: 'cost $5 and $HOME', missing: [] });
  assert.deepEqual(expandReferences('empty:${E}', { E: '' }), { value: 'empty:', missing: [] });
  assert.deepEqual(expandReferences('${1X} ${a-b}', { '1X': 'no' }), { value: '${1X} ${a-b}', missing: [] });
});

test('missing variables are named', () => {
  assert.deepEqual(expandReferences('x ${NOPE} ${ALSO}', {}), { value: 'x  ', missing: ['NOPE', 'ALSO'] });
  assert.deepEqual(expandAll({ a: 'fine', b: '${GONE}', c: '${LATER}' }, {}), { ok: false, missing: 'GONE' });
  assert.deepEqual(expandAll({ a: '${X}', b: 'plain' }, { X: 'y' }), {
    ok: true,
    values: { a: 'y', b: 'plain' },
  });
  assert.equal(notSet('API_TOKEN'), 'environment variable API_TOKEN is not set');
});

test('referenced names in order of appearance', () => {
  assert.deepEqual(referencedNames('${A}:${B}:${A} $C'), ['A', 'B', 'A']);
  assert.deepEqual(referencedNames('no references'), []);
});
