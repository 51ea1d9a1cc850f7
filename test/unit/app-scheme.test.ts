/**
 * The app scheme (app/app-scheme.ts): which request URLs map to which files of the built renderer, that nothing
 * outside it can be named, that the Content-Security-Policy is the strict one the window relies on, and that the
 * responses carry the pair of headers that makes the page cross-origin isolated.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  APP_ENTRY_URL,
  CONTENT_SECURITY_POLICY,
  CROSS_ORIGIN_ISOLATION_HEADERS,
  contentTypeOf,
  resolveAppAsset,
} from '../../app/app-scheme.ts';

const root = path.resolve('/srv/rigwright/dist/renderer');

test('app URLs map to files inside the renderer folder', () => {
  assert.equal(APP_ENTRY_URL, 'rigwright://app/index.html');
  assert.equal(resolveAppAsset(APP_ENTRY_URL, root), path.join(root, 'index.html'));
  assert.equal(resolveAppAsset('rigwright://app/', root), path.join(root, 'index.html'));
  assert.equal(resolveAppAsset('rigwright://app', root), path.join(root, 'index.html'));
  assert.equal(
    resolveAppAsset('rigwright://app/assets/io.worker-3f2a.js?worker_file&type=module', root),
    path.join(root, 'assets', 'io.worker-3f2a.js'),
  );
  assert.equal(resolveAppAsset('rigwright://app/assets/a%20b.js', root), path.join(root, 'assets', 'a b.js'));
  assert.equal(resolveAppAsset('rigwright://app/assets//x.css#frag', root), path.join(root, 'assets', 'x.css'));
});

test('requests that could leave the renderer folder, or come from elsewhere, are refused', () => {
  // The URL parser itself resolves `..` and `%2e%2e` segments at the root, so these stay inside the folder.
  for (const url of [
    'rigwright://app/../main.cjs',
    'rigwright://app/assets/../../app/main.cjs',
    'rigwright://app/%2e%2e/%2E%2E/package.json',
  ]) {
    const resolved = resolveAppAsset(url, root);
    assert.ok(resolved !== null && resolved.startsWith(root + path.sep), `${url} → ${resolved}`);
  }
  for (const url of [
    'rigwright://app/..%2fapp%2fmain.cjs',
    'rigwright://app/..%5capp%5cmain.cjs',
    'rigwright://app/assets%2f..%2f..%2fpackage.json',
    'rigwright://app/C:%5cWindows%5cwin.ini',
    'rigwright://app/a%00.js',
    'rigwright://app/%E0%A4%A',
    'rigwright://other/index.html',
    'https://app/index.html',
    'file:///etc/passwd',
    'not a url',
  ]) {
    assert.equal(resolveAppAsset(url, root), null, url);
  }
});

test('module scripts and workers are served with a JavaScript type', () => {
  assert.match(contentTypeOf('/x/index-abc.js'), /^text\/javascript/);
  assert.match(contentTypeOf('/x/worker.MJS'), /^text\/javascript/);
  assert.match(contentTypeOf('/x/index.html'), /^text\/html/);
  assert.equal(contentTypeOf('/x/shader.wasm'), 'application/wasm');
  assert.equal(contentTypeOf('/x/unknown.bin'), 'application/octet-stream');
});

test('the Content-Security-Policy allows only our own scripts and workers and no plugins', () => {
  const directives = new Map(
    CONTENT_SECURITY_POLICY.split(/;\s*/).map((d) => {
      const [name, ...sources] = d.trim().split(/\s+/);
      return [name, sources] as const;
    }),
  );
  assert.deepEqual(directives.get('script-src'), ["'self'", "'wasm-unsafe-eval'"], 'WebAssembly compiles; JavaScript eval does not');
  assert.deepEqual(directives.get('worker-src'), ["'self'", 'blob:']);
  assert.deepEqual(directives.get('object-src'), ["'none'"]);
  assert.deepEqual(directives.get('default-src'), ["'self'"]);
  for (const [name, sources] of directives) {
    for (const source of sources) {
      assert.doesNotMatch(source, /^(https?:|wss?:|\*|'unsafe-eval')/i, `${name} ${source}`);
      if (name !== 'style-src') assert.notEqual(source, "'unsafe-inline'", name);
    }
  }
});

test('the isolation headers are the opener and embedder policies that make the page cross-origin isolated', () => {
  // crossOriginIsolated needs exactly these two values; 'credentialless' or 'same-origin-allow-popups' would not do.
  assert.deepEqual(Object.fromEntries(Object.entries(CROSS_ORIGIN_ISOLATION_HEADERS).map(([name, value]) => [name.toLowerCase(), value])), {
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-embedder-policy': 'require-corp',
  });
});
