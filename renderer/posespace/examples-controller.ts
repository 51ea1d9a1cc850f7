/**
 * The scene's example shapes as the user edits them: add (files read as examples, each taking its own pose file
 * or the chosen default pose), remove, hide and show, rename. Every edit is one labelled, undoable step of the
 * scene store; the list itself lives in the document (SceneDocument.examples). DOM-free: the Examples panel
 * shows this state and acts through commands.
 */
import { samplePose } from '../../workers/rig/pose-sequence.ts';
import type { DefaultExamplePose, ExampleLoadOptions } from '../document/example-files.ts';
import { examplesOf, type ExampleShape } from '../../workers/scene/scene-document.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';

/** The pose an example without a pose file takes: the one shown in the viewport, or a frame of the loaded sequence. */
export type ExamplePoseChoice = { kind: 'viewport' } | { kind: 'frame'; frame: number };

export interface ExamplesHost {
  readonly store: SceneStore;
  /** #B × 9 relative rotations shown in the viewport now, and how to name them ('frame 12 of walk.dmat') */
  shownPose(): { rotations: Float64Array; label: string };
  /** Reads files the user picks, with these options; resolves when the batch is in (or refused). */
  openFiles(options: ExampleLoadOptions): Promise<void>;
}

export class ExamplesController {
  poseChoice: ExamplePoseChoice = { kind: 'viewport' };

  constructor(private readonly host: ExamplesHost) {}

  get examples(): readonly ExampleShape[] {
    return examplesOf(this.host.store.doc);
  }

  /** The options every batch of files is read with: examples without a pose file take the chosen pose. */
  readonly loadOptions = (asExamples = false): ExampleLoadOptions => ({ asExamples, defaultPose: (b) => this.defaultPose(b) });

  /** The pose the choice names, for a skeleton of `boneCount` bones, or null when it has another bone count. */
  defaultPose(boneCount: number): DefaultExamplePose | null {
    const doc = this.host.store.doc;
    if (doc.skeleton.parents.length !== boneCount) return null;
    const choice = this.poseChoice;
    if (choice.kind === 'frame' && doc.poses?.kind === 'matrices') {
      const rotations = new Float64Array(9 * boneCount);
      samplePose(doc.poses, choice.frame, rotations);
      return { rotations, source: `frame ${choice.frame} of ${doc.posesFile ?? 'the sequence'}` };
    }
    const shown = this.host.shownPose();
    return { rotations: shown.rotations.slice(), source: `the viewport pose (${shown.label})` };
  }

  /** @param choice  'viewport', or a frame number of the loaded matrix sequence */
  setPoseChoice(choice: 'viewport' | number): void {
    const poses = this.host.store.doc.poses;
    if (choice === 'viewport') this.poseChoice = { kind: 'viewport' };
    else {
      const frames = poses?.kind === 'matrices' ? poses.frameCount : 0;
      if (!(Number.isInteger(choice) && choice >= 0 && choice < frames))
        throw new Error(`examples.pose: frame ${choice} is not in the loaded sequence (${frames} frames)`);
      this.poseChoice = { kind: 'frame', frame: choice };
    }
  }

  /** Opens mesh files (and their pose files) as examples. */
  add(): Promise<void> {
    return this.host.openFiles(this.loadOptions(true));
  }

  remove(name: string): void {
    const list = this.examples;
    this.find(name);
    this.host.store.edit(`Remove example ${name}`, { examples: list.filter((e) => e.name !== name) });
  }

  /** Hides a shown example or shows a hidden one: a hidden example takes no part in the deformation. */
  toggle(name: string): void {
    const example = this.find(name);
    this.replace(name, { ...example, hidden: !example.hidden }, `${example.hidden ? 'Show' : 'Hide'} example ${name}`);
  }

  rename(name: string, newName: string): void {
    const trimmed = newName.trim();
    const example = this.find(name);
    if (trimmed === name) return;
    if (trimmed === '') throw new Error(`Rename example ${name}: the new name is empty`);
    if (this.examples.some((e) => e.name === trimmed)) throw new Error(`Rename example ${name}: ${trimmed} is already an example's name`);
    this.replace(name, { ...example, name: trimmed }, `Rename example ${name} to ${trimmed}`);
  }

  private find(name: string): ExampleShape {
    const example = this.examples.find((e) => e.name === name);
    if (!example) {
      const names = this.examples.map((e) => e.name);
      throw new Error(
        `no example named ${JSON.stringify(name)}${names.length > 0 ? ` (the examples are ${names.join(', ')})` : ' (there are none)'}`,
      );
    }
    return example;
  }

  private replace(name: string, example: ExampleShape, label: string): void {
    this.host.store.edit(label, { examples: this.examples.map((e) => (e.name === name ? example : e)) });
  }
}
