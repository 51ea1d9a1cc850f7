/**
 * The session's settings saved with the project — how the scene is shown and edited: skinning method, view, brush,
 * export and binding settings, the pose-space kernel, the selected bone — as one store of sections. Each feature
 * registers the section it owns (what its values are now, and how it takes saved ones back); the project file saves
 * the store's snapshot and gives a project's settings back to it, so no one gathers or scatters them by hand and a
 * new setting is added where its feature is.
 */
import type { ProjectSettings } from '../../workers/formats/project-file.ts';

export type SettingsKey = keyof ProjectSettings;

export interface SettingsSection<K extends SettingsKey> {
  /** the section's values now, as the project saves them (copies: the file is written later) */
  save(): ProjectSettings[K];
  /** takes a project's values back; a name this version does not know keeps the current setting (see `pick`) */
  restore(saved: ProjectSettings[K]): void;
}

type Sections = { [K in SettingsKey]?: SettingsSection<K> };

/** The order sections are restored in: the view's last, since a view mode may depend on the method (Look, heat map). */
const ORDER: readonly SettingsKey[] = ['skin', 'paint', 'export', 'posespace', 'binding', 'view'];

export class SettingsStore {
  private readonly sections: Sections = {};

  /** @throws Error when the section is registered twice (two owners of one setting) */
  register<K extends SettingsKey>(key: K, section: SettingsSection<K>): void {
    if (this.sections[key]) throw new Error(`settings section ${key} is registered twice`);
    (this.sections as Record<K, SettingsSection<K>>)[key] = section;
  }

  /** Every section's values now. @throws Error naming a section no feature registered */
  snapshot(): ProjectSettings {
    const out: Partial<ProjectSettings> = {};
    for (const key of ORDER) (out as Record<SettingsKey, unknown>)[key] = this.section(key).save();
    return out as ProjectSettings;
  }

  /** Gives every section its saved values (a project opened, or recovered). */
  restore(settings: ProjectSettings): void {
    for (const key of ORDER) this.restoreSection(key, settings[key]);
  }

  private restoreSection<K extends SettingsKey>(key: K, saved: ProjectSettings[K]): void {
    this.section(key).restore(saved);
  }

  private section<K extends SettingsKey>(key: K): SettingsSection<K> {
    const section: SettingsSection<K> | undefined = this.sections[key];
    if (!section) throw new Error(`settings section ${key} has no owner`);
    return section;
  }
}

/** `value` when it is one of `choices`, else `fallback` (a saved name this version does not know). */
export function pick<T extends string | number | null>(value: unknown, choices: readonly T[], fallback: T): T {
  return choices.includes(value as T) ? (value as T) : fallback;
}
