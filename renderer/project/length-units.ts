/**
 * How lengths are shown to people (a preference, project/preferences.ts): in the scene's own units, or in metres,
 * centimetres or millimetres through the scene's scale (metres per scene unit). Every length the page shows — the
 * cylinder radius of automatic handles, bone lengths — goes through `formatLength`, which the shell points at the
 * user's units. No DOM, and no imports but the plain-number format: any layer may use it.
 */
import { plainNumber } from './plain-number.ts';

/** How lengths are shown: in the scene's own units, or in metric units given how many metres one scene unit is. */
export type LengthUnit = 'scene' | 'm' | 'cm' | 'mm';
export const LENGTH_UNITS: readonly LengthUnit[] = ['scene', 'm', 'cm', 'mm'];

export interface LengthUnits {
  unit: LengthUnit;
  /** metres per scene unit (the scene's scale); used by m, cm and mm */
  metresPerUnit: number;
}

let lengthsShownIn: LengthUnits = { unit: 'scene', metresPerUnit: 1 };

/** Makes `formatLength` show lengths in these units (the shell, from the preference). */
export function showLengthsIn(units: LengthUnits): void {
  lengthsShownIn = units;
}

const PER_METRE: Readonly<Record<Exclude<LengthUnit, 'scene'>, number>> = { m: 1, cm: 100, mm: 1000 };

/**
 * A length as people read it, in plain decimals to 3 significant digits (plainNumber: never an exponent, under a
 * thousandth '< 0.001'): in scene units a bare number ('0.123'), in metric units with the unit, through the scene's
 * scale ('12.3 cm' for 0.123 scene units at 1 m per unit).
 * @param x  the length in scene units
 */
export function formatLength(x: number, units: LengthUnits = lengthsShownIn): string {
  if (units.unit === 'scene') return plainNumber(x);
  return `${plainNumber(x * units.metresPerUnit * PER_METRE[units.unit])} ${units.unit}`;
}
