/**
 * The user's preferences: how the app looks and behaves for this person on this machine, whatever project is open —
 * theme, length units, what a new scene starts with (max influences, brush), the keys of commands (an entry of
 * commands/user-keymap.ts, registered by the shell, since this module imports nothing from commands/). Unlike the settings
 * saved with a project (settings-store.ts), they are saved per user: in the page's local storage, which the desktop
 * app keeps in the user's profile.
 *
 * A preference is a typed entry (`PreferenceEntry<T>`: key, label, default, and a `read` that takes a stored value
 * back or refuses it). The store owns the core entries (`store.core`); a feature adds its own with `register`, which
 * gives back a handle with get / set / subscribe, and the preferences page lists it under its section. What is
 * stored is versioned (`PREFERENCES_VERSION`); a stored value that cannot be read — not JSON, a theme this version
 * does not know, a radius out of range — falls back to the default with a warning, never an error. Values of entries
 * no feature has registered yet are kept as they were stored, so registering late loses nothing.
 *
 * No DOM: the storage is given (localStorage in the page, a Map in Node tests).
 */
import { MAX_INFLUENCE_CHOICES, MAX_INFLUENCES_DEFAULT } from '../../workers/weights/limit-influences.ts';
import { BRUSH_FALLOFFS, BRUSH_MODES, BRUSH_RADIUS_RANGE } from '../paint/brush-options.ts';
import { LENGTH_UNITS, type LengthUnit, type LengthUnits } from './length-units.ts';

/** Local-storage key of the preferences. */
export const PREFERENCES_STORAGE_KEY = 'rigwright.preferences';
/** The version of what is stored; a newer one is read entry by entry, with a warning. */
export const PREFERENCES_VERSION = 1;

/** Where preferences are kept: the page's localStorage, or a stand-in in tests. */
export interface PreferenceStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** One preference: what it is called, where the page shows it, its default, and how a stored value is taken back. */
export interface PreferenceEntry<T> {
  /** the name it is stored under, unique: 'theme', 'brush', 'influences.max' */
  key: string;
  /** what the preferences page calls it */
  label: string;
  /** the page's section it appears in, e.g. 'Appearance', 'New scene' */
  section: string;
  /** longer text for its tooltip */
  description?: string;
  default: T;
  /**
   * The value `stored` stands for, or a reason it cannot be used ({ problem }).
   * @param drop  told each part of `stored` left out of the value (a table whose bad rows are dropped), and why
   */
  read(stored: unknown, drop?: (note: string) => void): T | { problem: string };
  /** what a control offers: choices (value, label), or a number's range; absent for a value with its own page */
  control?: { choices: readonly (readonly [T, string])[] } | { min: number; max: number; step: number };
}

/** A registered preference: its value now, a setter that saves, and change notices. */
export interface Preference<T> {
  readonly entry: PreferenceEntry<T>;
  get(): T;
  /**
   * Sets and saves the value (saving refused by the storage keeps it for this page, with a warning).
   * @throws Error naming the preference when `value` is one its entry does not take
   */
  set(value: T): void;
  /** Calls `listener` with each new value; gives back the unsubscribe. */
  subscribe(listener: (value: T) => void): () => void;
}

export type Theme = 'dark' | 'light';

/** The brush a new scene starts with (paint/paint-controller.ts BrushSettings; radius in CSS pixels). */
export interface BrushDefaults {
  mode: (typeof BRUSH_MODES)[number];
  /** CSS pixels, 2 … 400 */
  radius: number;
  /** 0 … 1 */
  strength: number;
  falloff: (typeof BRUSH_FALLOFFS)[number];
}

export type { LengthUnit, LengthUnits };
export { LENGTH_UNITS };

/** The core preferences' values. */
export interface CorePreferences {
  theme: Theme;
  lengthUnits: LengthUnits;
  /** the max influences a new scene starts with: the most bones a vertex's weights use (1 … 8; bind/max-influences.ts) */
  maxInfluences: (typeof MAX_INFLUENCE_CHOICES)[number];
  brush: BrushDefaults;
}

export const PREFERENCE_DEFAULTS: Readonly<CorePreferences> = {
  theme: 'dark',
  lengthUnits: { unit: 'scene', metresPerUnit: 1 },
  maxInfluences: MAX_INFLUENCES_DEFAULT,
  brush: { mode: 'add', radius: 40, strength: 0.3, falloff: 'smooth' },
};

/** Range of the scene's scale a user may give, in metres per scene unit. */
export const METRES_PER_UNIT_RANGE = { min: 1e-6, max: 1e6 } as const;

// --- entry makers --------------------------------------------------------------------------------------------------

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const shown = (value: unknown): string => (typeof value === 'string' ? `"${value}"` : (JSON.stringify(value) ?? String(value)));

/** An entry whose value is one of a few choices (value, label). */
export function choicePreference<T extends string | number>(
  entry: Omit<PreferenceEntry<T>, 'read' | 'control'> & { choices: readonly (readonly [T, string])[] },
): PreferenceEntry<T> {
  const { choices, ...rest } = entry;
  return {
    ...rest,
    control: { choices },
    read: (stored) =>
      choices.some(([value]) => value === stored)
        ? (stored as T)
        : { problem: `${shown(stored)} is not one of ${choices.map(([value]) => shown(value)).join(', ')}` },
  };
}

/** An entry whose value is a number in [min, max] (an integer when `step` is 1). */
export function numberPreference(
  entry: Omit<PreferenceEntry<number>, 'read' | 'control'> & { min: number; max: number; step?: number },
): PreferenceEntry<number> {
  const { min, max, step = 0, ...rest } = entry;
  return {
    ...rest,
    control: { min, max, step: step || (max - min) / 100 },
    read: (stored) => {
      if (typeof stored !== 'number' || !Number.isFinite(stored)) return { problem: `${shown(stored)} is not a number` };
      if (stored < min || stored > max) return { problem: `${stored} is outside ${min} … ${max}` };
      if (step === 1 && !Number.isInteger(stored)) return { problem: `${stored} is not a whole number` };
      return stored;
    },
  };
}

/** The core entries, in the order the page shows them. */
export const CORE_ENTRIES: { readonly [K in keyof CorePreferences]: PreferenceEntry<CorePreferences[K]> } = {
  theme: choicePreference<Theme>({
    key: 'theme',
    label: 'Theme',
    section: 'Appearance',
    default: PREFERENCE_DEFAULTS.theme,
    choices: [
      ['dark', 'Dark'],
      ['light', 'Light'],
    ],
  }),
  lengthUnits: {
    key: 'lengthUnits',
    label: 'Lengths',
    section: 'Units',
    description: 'How lengths are shown (the cylinder radius, bone lengths): in scene units, or in metres given the scene’s scale',
    default: PREFERENCE_DEFAULTS.lengthUnits,
    read: (stored) => {
      if (!isRecord(stored)) return { problem: `${shown(stored)} is not { unit, metresPerUnit }` };
      if (!LENGTH_UNITS.includes(stored.unit as LengthUnit))
        return { problem: `unit ${shown(stored.unit)} is not one of ${LENGTH_UNITS.join(', ')}` };
      const scale = stored.metresPerUnit;
      if (typeof scale !== 'number' || !(scale >= METRES_PER_UNIT_RANGE.min && scale <= METRES_PER_UNIT_RANGE.max))
        return {
          problem: `metres per unit ${shown(scale)} is not a number in ${METRES_PER_UNIT_RANGE.min} … ${METRES_PER_UNIT_RANGE.max}`,
        };
      return { unit: stored.unit as LengthUnit, metresPerUnit: scale };
    },
  },
  maxInfluences: choicePreference<CorePreferences['maxInfluences']>({
    key: 'maxInfluences',
    label: 'Max influences',
    section: 'New scene',
    description:
      'The most bones a vertex’s weights use in a new scene (the Bind panel’s Max influences): weights computed or painted keep to it, the view and the export follow; a project keeps its own',
    default: PREFERENCE_DEFAULTS.maxInfluences,
    choices: MAX_INFLUENCE_CHOICES.map((count) => [count, String(count)] as const),
  }),
  brush: {
    key: 'brush',
    label: 'Brush',
    section: 'New scene',
    description: 'The brush a new scene starts with: mode, radius (screen pixels), strength, falloff',
    default: PREFERENCE_DEFAULTS.brush,
    read: (stored) => {
      if (!isRecord(stored)) return { problem: `${shown(stored)} is not { mode, radius, strength, falloff }` };
      const { mode, radius, strength, falloff } = stored;
      if (!BRUSH_MODES.includes(mode as BrushDefaults['mode']))
        return { problem: `mode ${shown(mode)} is not one of ${BRUSH_MODES.join(', ')}` };
      if (!BRUSH_FALLOFFS.includes(falloff as BrushDefaults['falloff']))
        return { problem: `falloff ${shown(falloff)} is not one of ${BRUSH_FALLOFFS.join(', ')}` };
      if (typeof radius !== 'number' || !(radius >= BRUSH_RADIUS_RANGE.min && radius <= BRUSH_RADIUS_RANGE.max))
        return { problem: `radius ${shown(radius)} is not a number in ${BRUSH_RADIUS_RANGE.min} … ${BRUSH_RADIUS_RANGE.max}` };
      if (typeof strength !== 'number' || !(strength >= 0 && strength <= 1))
        return { problem: `strength ${shown(strength)} is not a number in 0 … 1` };
      return { mode: mode as BrushDefaults['mode'], radius, strength, falloff: falloff as BrushDefaults['falloff'] };
    },
  },
};

// --- the store -----------------------------------------------------------------------------------------------------

interface Slot {
  entry: PreferenceEntry<unknown>;
  value: unknown;
  listeners: Set<(value: unknown) => void>;
}

export class PreferenceStore {
  /** the core preferences (theme, units, new-scene defaults) */
  readonly core: { readonly [K in keyof CorePreferences]: Preference<CorePreferences[K]> };
  /** what reading or saving the stored preferences noticed, each naming the preference and the reason */
  readonly warnings: string[] = [];
  private readonly slots = new Map<string, Slot>();
  /** the stored values as read, of registered entries and of ones no feature registered yet */
  private readonly stored: Record<string, unknown> = {};
  private readonly registeredListeners = new Set<(entry: PreferenceEntry<unknown>) => void>();

  /**
   * Reads the stored preferences.
   * @param storage  where they are kept; null: defaults, saved nowhere (the page's storage cannot be used)
   * @param warn  told each warning as it arises (the shell shows them)
   */
  constructor(
    private readonly storage: PreferenceStorage | null,
    private readonly warn: (message: string) => void = () => {},
  ) {
    this.load();
    this.core = Object.fromEntries(
      Object.entries(CORE_ENTRIES).map(([name, entry]) => [name, this.register(entry as PreferenceEntry<unknown>)]),
    ) as unknown as PreferenceStore['core'];
  }

  /**
   * Adds a feature's preference: its stored value when it reads, else its default (with a warning when one was
   * stored but cannot be used). The preferences page lists it under its section.
   * @throws Error when an entry with the same key is registered already (two owners of one preference)
   */
  register<T>(entry: PreferenceEntry<T>): Preference<T> {
    if (this.slots.has(entry.key)) throw new Error(`preference ${entry.key} is registered twice`);
    const slot: Slot = { entry: entry, value: entry.default, listeners: new Set() };
    if (entry.key in this.stored) {
      let dropped = false;
      const read = entry.read(this.stored[entry.key], (note) => {
        dropped = true;
        this.warning(`Preference “${entry.label}”: ${note}`);
      });
      if (isProblem(read)) {
        this.warning(`Preference “${entry.label}” could not be read (${read.problem}); the default is used`);
        // The next save writes no value this version cannot read.
        delete this.stored[entry.key];
      } else {
        slot.value = read;
        // The next save writes what is used.
        if (dropped) this.stored[entry.key] = read;
      }
    }
    this.slots.set(entry.key, slot);
    for (const listener of this.registeredListeners) listener(slot.entry);
    return this.handle(slot) as Preference<T>;
  }

  /** The registered entries, core ones first, then features' in the order they registered. */
  entries(): PreferenceEntry<unknown>[] {
    return [...this.slots.values()].map((slot) => slot.entry);
  }

  /** The handle of a registered preference, or undefined. */
  preference(key: string): Preference<unknown> | undefined {
    const slot = this.slots.get(key);
    return slot && this.handle(slot);
  }

  /** Calls `listener` when a feature registers a preference (the page adds its row); gives back the unsubscribe. */
  onRegistered(listener: (entry: PreferenceEntry<unknown>) => void): () => void {
    this.registeredListeners.add(listener);
    return () => this.registeredListeners.delete(listener);
  }

  private handle(slot: Slot): Preference<unknown> {
    return {
      entry: slot.entry,
      get: () => slot.value,
      set: (value) => this.setSlot(slot, value),
      subscribe: (listener) => {
        slot.listeners.add(listener);
        return () => slot.listeners.delete(listener);
      },
    };
  }

  private setSlot(slot: Slot, value: unknown): void {
    const notes: string[] = [];
    const read = slot.entry.read(value, (note) => notes.push(note));
    if (isProblem(read)) throw new Error(`preference ${slot.entry.key}: ${read.problem}`);
    if (notes.length > 0) throw new Error(`preference ${slot.entry.key}: ${notes.join('; ')}`);
    slot.value = read;
    this.stored[slot.entry.key] = read;
    this.save();
    for (const listener of [...slot.listeners]) listener(read);
  }

  private load(): void {
    let text: string | null;
    try {
      text = this.storage?.getItem(PREFERENCES_STORAGE_KEY) ?? null;
    } catch (error) {
      this.warning(`Preferences could not be read (${(error as Error).message}); the defaults are used`);
      return;
    }
    if (text === null) return;
    let saved: unknown;
    try {
      saved = JSON.parse(text);
    } catch {
      this.warning('Preferences could not be read (what is stored is not JSON); the defaults are used');
      return;
    }
    if (!isRecord(saved) || typeof saved.version !== 'number' || !isRecord(saved.values)) {
      this.warning('Preferences could not be read (what is stored is not { version, values }); the defaults are used');
      return;
    }
    if (saved.version !== PREFERENCES_VERSION)
      this.warning(
        `Preferences were saved by ${saved.version > PREFERENCES_VERSION ? 'a newer' : 'an older'} version (${saved.version}; this one reads ${PREFERENCES_VERSION}): each is used where it reads`,
      );
    Object.assign(this.stored, saved.values);
  }

  private save(): void {
    if (!this.storage) return;
    try {
      this.storage.setItem(PREFERENCES_STORAGE_KEY, JSON.stringify({ version: PREFERENCES_VERSION, values: this.stored }));
    } catch (error) {
      this.warning(`Preferences could not be saved (${(error as Error).message}); they hold for this page only`);
    }
  }

  private warning(message: string): void {
    this.warnings.push(message);
    this.warn(message);
  }
}

function isProblem(read: unknown): read is { problem: string } {
  return isRecord(read) && typeof read.problem === 'string' && Object.keys(read).length === 1;
}
