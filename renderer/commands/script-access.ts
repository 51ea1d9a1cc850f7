/**
 * Which catalog commands a script may run: all but SCRIPT_DENIED_COMMANDS, each refused one with why. The app's runner
 * and `rigwright run` offer SCRIPT_COMMAND_IDS and say the reason of a refused one (scriptDeniedReason); the
 * declaration file declares exactly these, grouped by the prefix of their ids (commandNamespaces), and the reference
 * page lists the refused ones with their reasons.
 */
import { COMMANDS, type CommandId } from './command-catalog.ts';

/** Why a script may not run a command that opens a scene (a run must be able to go back to the scene it began on). */
const OPENS_A_SCENE =
  "it opens another scene, which clears the undo history and with it the run's own step, so a run that failed afterwards could not go back; scripts open files with rig.files.open";
/** Why a script may not run a command that saves through the app's Save dialog. */
const SAVES_BY_DIALOG = 'it asks for a place in a Save dialog; scripts write files by path with rig.files';

/**
 * The commands scripts may not run, each with why: an id, or a prefix ending in `.*` for all of its commands. What is
 * left of the catalog is SCRIPT_COMMAND_IDS. The reference page lists these with their reasons.
 */
export const SCRIPT_DENIED_COMMANDS: Readonly<Record<string, string>> = {
  'script.*': 'a script does not start, stop, open or save scripts',
  'help.*': 'they show help to the user, who is not at the keyboard for a script',
  'app.preferences': "it opens the Preferences dialog for the user; the app's settings are not the scene's",
  'view.commandPalette': 'it opens the command palette for the user to choose a command',
  'edit.undo':
    'a run is one undo step, and Undo cannot go back inside it (it would fail); a script undoes its own edits by making the opposite edit',
  'edit.redo': 'a run is one undo step: there is nothing inside it to redo',
  'file.openProject': OPENS_A_SCENE,
  'file.open': OPENS_A_SCENE,
  'file.recentFirst': OPENS_A_SCENE,
  'file.recentSecond': OPENS_A_SCENE,
  'file.recentThird': OPENS_A_SCENE,
  'file.recentFourth': OPENS_A_SCENE,
  'file.recentFifth': OPENS_A_SCENE,
  'file.demo': OPENS_A_SCENE,
  'file.twistDemo': OPENS_A_SCENE,
  'file.save': SAVES_BY_DIALOG,
  'file.saveAs': SAVES_BY_DIALOG,
  'file.export': SAVES_BY_DIALOG,
  'file.saveSkeleton': SAVES_BY_DIALOG,
  'file.saveClip': SAVES_BY_DIALOG,
  'file.exportSettings': 'it opens the export settings dialog for the user; rig.files.exportGltf takes the options',
  'file.autosaveSettings': "it opens the autosave settings for the user; they are the app's, not the scene's",
  'file.autosave': "autosave is the app's setting, not the scene's",
};

/**
 * Why SCRIPT_DENIED_COMMANDS refuses a command: its id's entry, or its prefix's `.*` entry; undefined for a command
 * scripts may run and for an id that is no command (`help.noSuch` has no reason, though `help.*` would cover it).
 */
export function scriptDeniedReason(id: string): string | undefined {
  if (!Object.hasOwn(COMMANDS, id)) return undefined;
  return SCRIPT_DENIED_COMMANDS[id] ?? SCRIPT_DENIED_COMMANDS[`${id.slice(0, id.indexOf('.'))}.*`];
}

/**
 * The commands a script may run, in catalog order: all but SCRIPT_DENIED_COMMANDS. The app's runner and
 * `rigwright run` offer exactly these, and the declaration file declares exactly these.
 */
export const SCRIPT_COMMAND_IDS: readonly CommandId[] = (Object.keys(COMMANDS) as CommandId[]).filter(
  (id) => scriptDeniedReason(id) === undefined,
);

/** The commands a script may run grouped by the prefix of their id (`bind.compute` → `bind`), in catalog order. */
export function commandNamespaces(): Map<string, CommandId[]> {
  const groups = new Map<string, CommandId[]>();
  for (const id of SCRIPT_COMMAND_IDS) {
    const dot = id.indexOf('.');
    const prefix = id.slice(0, dot);
    const list = groups.get(prefix) ?? [];
    list.push(id);
    groups.set(prefix, list);
  }
  return groups;
}
