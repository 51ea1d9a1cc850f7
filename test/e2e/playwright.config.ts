import { defineConfig } from '@playwright/test';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * End-to-end tests drive the built renderer as a web page in Debian's Chromium (no browser download here).
 * WebGL2 runs on SwiftShader, so GPU output can be read back and compared with the CPU references.
 * `npm run test:e2e` builds dist/renderer first; the web server below serves that build.
 */
export const CHROMIUM_PATH = process.env.RIGWRIGHT_CHROMIUM ?? '/usr/bin/chromium';
/**
 * Port, build folder and results folder can be moved so two test runs do not meet
 * (defaults: 4173, dist/renderer, test-results).
 */
const PORT = Number(process.env.RIGWRIGHT_E2E_PORT ?? 4173);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BUILD_DIR = path.resolve(repoRoot, process.env.RIGWRIGHT_E2E_OUT ?? 'dist/renderer');
const RESULTS_DIR = path.resolve(repoRoot, process.env.RIGWRIGHT_E2E_RESULTS ?? 'test-results');

export default defineConfig({
  testDir: '.',
  outputDir: RESULTS_DIR,
  timeout: 120_000,
  expect: { timeout: 20_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    viewport: { width: 1280, height: 800 },
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: [
        '--no-sandbox',
        '--use-gl=angle',
        '--use-angle=swiftshader',
        '--enable-unsafe-swiftshader',
        '--ignore-gpu-blocklist',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
  },
  webServer: {
    command: `npx vite preview --config renderer/vite.config.ts --outDir ${BUILD_DIR} --host 127.0.0.1 --port ${PORT} --strictPort`,
    cwd: '../..',
    url: `http://127.0.0.1:${PORT}`,
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
  },
});
