import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statusParts, type StatusInput } from '../../renderer/shell/status-line.ts';
import { countOf } from '../../renderer/project/plain-number.ts';
import { demoDocument } from '../../workers/scene/scene-document.ts';

const input = (warnings: string[], handles = 0): StatusInput => ({
  doc: { ...demoDocument(), warnings },
  loadingNames: [],
  painted: false,
  influenceSetting: 4,
  influenceStride: 4,
  handles: { count: handles, name: null },
  selectedBone: -1,
  scaled: false,
  undoLabel: null,
});

test('counts: one in the singular, others in the plural, thousands grouped', () => {
  assert.equal(countOf(1, 'undo step'), '1 undo step');
  assert.equal(countOf(0, 'undo step'), '0 undo steps');
  assert.equal(countOf(2, 'earlier warning'), '2 earlier warnings');
  assert.equal(countOf(1, 'vertex', 'vertices'), '1 vertex');
  assert.equal(countOf(12345, 'vertex', 'vertices'), '12\u2009345 vertices');
});

test('status line: the scene warnings are a count that runs view.warnings, not a pointer to the console', () => {
  assert.ok(
    statusParts(input([])).every((part) => typeof part === 'string'),
    'no warnings: every field is plain text',
  );
  const one = statusParts(input(['a.glb: image 0 was not opened'], 1));
  assert.deepEqual(
    one.filter((part) => typeof part !== 'string'),
    [{ text: '1 warning', command: 'view.warnings' }],
  );
  assert.ok(one.includes('handles: 1 vertex'), `one handle vertex in the singular: ${JSON.stringify(one)}`);
  const three = statusParts(input(['a', 'b', 'c']));
  assert.deepEqual(
    three.filter((part) => typeof part !== 'string'),
    [{ text: '3 warnings', command: 'view.warnings' }],
  );
  assert.ok(!three.some((part) => typeof part === 'string' && part.includes('console')), 'nothing points at the console');
});

test('status line: a script running comes first, with its progress; none is said when none runs', () => {
  const running = statusParts({ ...input([]), script: 'Running script… prune.ts 40% · pruning' });
  assert.equal(running[0], 'Running script… prune.ts 40% · pruning');
  assert.deepEqual(running.slice(1), statusParts(input([])));
  assert.ok(
    statusParts({ ...input([]), script: null }).every((part) => typeof part !== 'string' || !part.startsWith('Running script')),
    'no script field when none runs',
  );
});
