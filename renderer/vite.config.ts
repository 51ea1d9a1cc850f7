import { defineConfig } from 'vite';

// Plain path strings from import.meta.dirname: renderer/ imports no node:* modules, its build config included.
const rendererRoot = import.meta.dirname;
const repoRoot = `${import.meta.dirname}/..`;

/**
 * Cross-origin isolation: with these two headers on every response the page is `crossOriginIsolated`, which is
 * what lets it share memory with its workers (SharedArrayBuffer, Atomics). `require-corp` lets the page embed only
 * same-origin files (and data:/blob: URLs), which is all it loads. The desktop app's scheme sends the same pair
 * (app/app-scheme.ts, CROSS_ORIGIN_ISOLATION_HEADERS).
 */
const crossOriginIsolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/**
 * The renderer as a web page: root is renderer/, while workers/ and shaders/ are imported across the root, so
 * the dev server may read the whole repository. `base: './'` keeps asset URLs relative, which the desktop app
 * needs when it loads dist/renderer/index.html itself. Module workers, like the page, are ES modules.
 */
export default defineConfig({
  root: rendererRoot,
  base: './',
  build: {
    outDir: `${repoRoot}/dist/renderer`,
    emptyOutDir: true,
    target: 'es2022',
    // three.js alone is ~600 kB minified; the app is loaded from disk or localhost, not over a slow network.
    chunkSizeWarningLimit: 1200,
  },
  server: {
    port: 5173,
    strictPort: true,
    fs: { allow: [repoRoot] },
    headers: crossOriginIsolationHeaders,
  },
  preview: {
    port: 4173,
    strictPort: true,
    headers: crossOriginIsolationHeaders,
  },
  worker: {
    format: 'es',
  },
});
