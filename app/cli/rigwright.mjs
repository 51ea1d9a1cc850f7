#!/usr/bin/env node
// Runs the TypeScript command-line tool directly: tsx compiles app/cli/main.ts and the workers/ modules on load.
import { register } from 'tsx/esm/api';

register();
const { runCliInProcess } = await import('./main.ts');
process.exitCode = await runCliInProcess(process.argv.slice(2));
