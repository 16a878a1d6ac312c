// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are literal ${NAME} references
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expandReferences, notListed, notSet, referencedNames, unlistedReference } from './env-refs.ts';

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
  assert.equal(notSet('API_TOKEN'), 'environment variable API_TOKEN is not set');
});

test('referenced names in order of appearance', () => {
  assert.deepEqual(referencedNames('${A}:${B}:${A} $C'), ['A', 'B', 'A']);
  assert.deepEqual(referencedNames('no references'), []);
});

test('the first reference to a variable a list leaves out', () => {
  assert.equal(unlistedReference('${A}/${B}/${C}', ['A']), 'B');
  assert.equal(unlistedReference('${A} and $B', ['A']), null);
  assert.equal(
    notListed('OIDC_SECRET'),
    'environment variable OIDC_SECRET is not listed in [checks] api_env of mon.toml',
  );
});
