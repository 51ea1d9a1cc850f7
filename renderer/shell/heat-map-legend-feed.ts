/**
 * What the heat map legend shows: the legend of the heat map on screen (the selected bone's weight map wins, since it
 * replaces the colours; else the deformation's area change or the examples' map), with the colours of the map's
 * written-down colour map (view/colour-maps.ts, the same the shader draws with), the values at the bar's ends and the
 * range of values on the mesh now. Worked out again on every chrome redraw and every posed frame.
 */
import type { DeformationController } from '../deform/deformation-controller.ts';
import type { HeatMapLegend, HeatMapLegendState } from '../panels/heat-map-legend.ts';
import type { ViewMode } from '../view/view-modes.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import { DISTORTION_COLOUR_MAP, MAGNITUDE_COLOUR_MAP, WEIGHT_COLOUR_MAP, colourMapSamples, type ColourMap } from '../view/colour-maps.ts';

export interface HeatMapLegendHost {
  readonly doc: SceneDocument;
  readonly viewMode: ViewMode;
  readonly selectedBone: number;
  readonly deformation: Pick<DeformationController, 'vertexMapShown' | 'exampleMapNote' | 'hidden'>;
}

/** A legend's number: three significant digits, without trailing zeros (0.00125, 0.5, 2). */
export function legendNumber(x: number): string {
  if (x === 0) return '0';
  return String(Number(x.toPrecision(3)));
}

const clamp01 = (x: number) => Math.min(Math.max(x, 0), 1);

const COLOURS = new Map<ColourMap, string[]>();
const coloursOf = (map: ColourMap): string[] => {
  let colours = COLOURS.get(map);
  if (!colours) COLOURS.set(map, (colours = colourMapSamples(map)));
  return colours;
};

/** The lowest and highest weight of `bone` over the vertices (0 and 0 without a bone). */
function weightRange(doc: SceneDocument, bone: number): { min: number; max: number } {
  const { rows, cols, data } = doc.weights;
  if (bone < 0 || bone >= cols || rows === 0) return { min: 0, max: 0 };
  let min = Infinity,
    max = -Infinity;
  for (let v = 0; v < rows; v++) {
    const w = data[v * cols + bone];
    if (w < min) min = w;
    if (w > max) max = w;
  }
  return { min, max };
}

/** The legend of the heat map on screen, or null when none is. */
export function heatMapLegendState(host: HeatMapLegendHost): HeatMapLegendState | null {
  const { doc, deformation } = host;
  if (deformation.hidden) return null;
  if (host.viewMode === 'heatmap') {
    const bone = host.selectedBone;
    const { min, max } = weightRange(doc, bone);
    return {
      kind: 'weight',
      title: bone >= 0 ? `Weight of ${boneNamesOf(doc)[bone]}` : 'Weight (no bone selected)',
      tooltip: 'How much the selected bone moves each vertex: 0 = not at all, 1 = it alone (skinning weight w_b, viridis colours)',
      colours: coloursOf(WEIGHT_COLOUR_MAP),
      low: '0',
      high: '1',
      units: 'weight',
      scale: [0, 1],
      data: { min, max, at: [clamp01(min), clamp01(max)], text: `on the mesh: ${legendNumber(min)} to ${legendNumber(max)}` },
      note: null,
    };
  }
  const shown = deformation.vertexMapShown;
  if (!shown) return null;
  if (shown.map === 'distortion') {
    // The map colours log2 of the area ratio over −1 … 1; the legend speaks of the ratio itself.
    const min = 2 ** shown.min,
      max = 2 ** shown.max;
    return {
      kind: 'distortion',
      title: 'Area change from the rest pose',
      tooltip:
        'Each vertex’s surrounding area posed against at rest (log2 of the one-ring area ratio): blue shrinks (candy-wrapper collapse), red grows (bulge)',
      colours: coloursOf(DISTORTION_COLOUR_MAP),
      low: '×0.5 (half)',
      high: '×2 (double)',
      units: '× area',
      scale: [0.5, 2],
      data: {
        min,
        max,
        at: [clamp01((shown.min + 1) / 2), clamp01((shown.max + 1) / 2)],
        text: `on the mesh: ×${legendNumber(min)} to ×${legendNumber(max)}`,
      },
      note: null,
    };
  }
  const blank = shown.fullScale === 0;
  const displacement = shown.map === 'displacement';
  const percent = (x: number) => `${legendNumber((100 * x) / doc.diagonal)}% of the mesh size`;
  return {
    kind: shown.map,
    title: displacement ? 'Correction from the examples' : 'Distance to the example at its pose',
    tooltip: displacement
      ? 'How far the examples move each vertex at this pose, |Σ_j a_j δ_j| (Eq. 7); full colour at the largest correction of any example'
      : 'How far the skinned mesh is from the example sculpted at this pose; full colour at 0.1% of the bounding-box diagonal',
    colours: coloursOf(MAGNITUDE_COLOUR_MAP),
    low: '0',
    high: blank ? '–' : legendNumber(shown.fullScale),
    units: 'mesh units',
    scale: [0, shown.fullScale],
    data: blank
      ? null
      : {
          min: shown.min,
          max: shown.max,
          at: [clamp01(shown.min / shown.fullScale), clamp01(shown.max / shown.fullScale)],
          text: `on the mesh: ${legendNumber(shown.min)} to ${legendNumber(shown.max)} (up to ${percent(shown.max)})`,
        },
    note: blank ? deformation.exampleMapNote : null,
  };
}

/** Keeps the legend showing the heat map on screen. */
export class HeatMapLegendFeed {
  constructor(
    private readonly legend: HeatMapLegend,
    private readonly host: () => HeatMapLegendHost,
  ) {}

  refresh(): void {
    this.legend.show(heatMapLegendState(this.host()));
  }
}
