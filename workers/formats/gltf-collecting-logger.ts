import type { ILogger } from '@gltf-transform/core';

/**
 * A glTF-Transform logger for export and import: its warnings and errors are collected into `warnings` so they
 * reach the user with ours; its debug and progress messages are dropped.
 */
export class CollectingLogger implements ILogger {
  constructor(private readonly warnings: string[]) {}
  debug(): void {}
  info(): void {}
  warn(text: string): void {
    this.warnings.push(text);
  }
  error(text: string): void {
    this.warnings.push(text);
  }
}
