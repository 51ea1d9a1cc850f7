#!/usr/bin/env node
// Runs the TypeScript command-line tool directly: tsx compiles app/cli/main.ts and the workers/ modules on load.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('./main.ts');
process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
