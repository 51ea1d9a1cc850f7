/**
 * What the heat map legend shows: the legend of the heat map on screen (the selected bone's weight map or the last
 * transfer's outcome wins, since it replaces the colours; else the deformation's area change or the examples' map), with the colours of the map's
 * written-down colour map (view/colour-maps.ts, the same the shader draws with), the values at the bar's ends and the
 * range of values on the mesh now. Worked out again on every chrome redraw and every posed frame.
 */
import type { DeformationController } from '../deform/deformation-controller.ts';
import type { HeatMapLegend, HeatMapLegendState } from '../panels/heat-map-legend.ts';
import type { ViewMode } from '../view/view-modes.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import { plainNumber } from '../project/plain-number.ts';
import { TRANSFER_CATEGORIES, type TransferRecord } from '../meshes/last-transfer.ts';
import { TRANSFER_COLOURS, cssColour } from '../view/transfer-colours.ts';
import { DISTORTION_COLOUR_MAP, MAGNITUDE_COLOUR_MAP, WEIGHT_COLOUR_MAP, colourMapSamples, type ColourMap } from '../view/colour-maps.ts';

export interface HeatMapLegendHost {
  readonly doc: SceneDocument;
  readonly viewMode: ViewMode;
  readonly selectedBone: number;
  readonly deformation: Pick<DeformationController, 'vertexMapShown' | 'exampleMapNote' | 'hidden'>;
  /** the lowest and highest weight of a bone (the feed's cache); without it, the weights are scanned */
  readonly weightRange?: (bone: number) => { min: number; max: number };
  /** the last weight transfer on the scene, for the Transfer view's legend; absent or null: none */
  readonly transfer?: TransferRecord | null;
}

const clamp01 = (x: number) => Math.min(Math.max(x, 0), 1);

const COLOURS = new Map<ColourMap, string[]>();
const coloursOf = (map: ColourMap): string[] => {
  let colours = COLOURS.get(map);
  if (!colours) COLOURS.set(map, (colours = colourMapSamples(map)));
  return colours;
};

/** Where a value of the map's domain sits along the legend's bar (0 at the low end, 1 at the high end). */
const alongBar = (map: ColourMap, value: number): number => clamp01((value - map.domain[0]) / (map.domain[1] - map.domain[0]));

/** The words for an area ratio at a bar's end: '×0.5 (half)', '×2 (double)', else the ratio alone. */
function areaRatioText(ratio: number): string {
  const word = ratio === 0.5 ? ' (half)' : ratio === 2 ? ' (double)' : '';
  return `×${plainNumber(ratio)}${word}`;
}

/** The lowest and highest weight of `bone` over the vertices (0 and 0 without a bone). */
export function weightRange(doc: SceneDocument, bone: number): { min: number; max: number } {
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

/**
 * The Transfer view's legend: the three outcomes' colours as blocks named under them (transfer-colours.ts, the table
 * the shader is made from), with the last transfer's counts.
 */
export function transferLegendState(record: TransferRecord | null): HeatMapLegendState {
  const [matched, inpainted, nearest] = TRANSFER_CATEGORIES.map((c) => TRANSFER_COLOURS[c.key]);
  const count = (n: number) => `${n} ${n === 1 ? 'vertex' : 'vertices'}`;
  return {
    kind: 'transfer',
    title: record ? `Transfer from ${record.source} to ${record.target}` : 'Transfer match (no transfer on this scene yet)',
    tooltip:
      'Each vertex of the last weight transfer’s target: matched a point of the source within the distance and angle (its weights taken), inpainted from the matched ones (Abdrashitov et al. 2023), or in a part with no match (its closest points’ weights); grey: not in the transfer',
    colours: [matched, inpainted, nearest].map(cssColour),
    steps: true,
    low: TRANSFER_CATEGORIES[0].label,
    high: TRANSFER_CATEGORIES[2].label,
    units: TRANSFER_CATEGORIES[1].label,
    scale: [0, 2],
    data: null,
    note: record
      ? `${count(record.counts.matched)} matched · ${record.counts.inpainted} inpainted · ${record.counts.nearest} with no match`
      : 'Transfer weights in the Meshes panel first.',
  };
}

/** The legend of the heat map on screen, or null when none is. */
export function heatMapLegendState(host: HeatMapLegendHost): HeatMapLegendState | null {
  const { doc, deformation } = host;
  if (deformation.hidden) return null;
  if (host.viewMode === 'transfer') return transferLegendState(host.transfer ?? null);
  if (host.viewMode === 'heatmap') {
    const bone = host.selectedBone;
    const { min, max } = host.weightRange ? host.weightRange(bone) : weightRange(doc, bone);
    const [lo, hi] = WEIGHT_COLOUR_MAP.domain;
    return {
      kind: 'weight',
      title: bone >= 0 ? `Weight of ${boneNamesOf(doc)[bone]}` : 'Weight (no bone selected)',
      tooltip: 'How much the selected bone moves each vertex: 0 = not at all, 1 = it alone (skinning weight w_b, viridis colours)',
      colours: coloursOf(WEIGHT_COLOUR_MAP),
      low: plainNumber(lo),
      high: plainNumber(hi),
      units: 'weight',
      scale: [lo, hi],
      data: {
        min,
        max,
        at: [alongBar(WEIGHT_COLOUR_MAP, min), alongBar(WEIGHT_COLOUR_MAP, max)],
        text: `on the mesh: ${plainNumber(min)} to ${plainNumber(max)}`,
      },
      note: null,
    };
  }
  const shown = deformation.vertexMapShown;
  if (!shown) return null;
  if (shown.map === 'distortion') {
    // The map colours log2 of the area ratio over its domain (−1 … 1); the legend speaks of the ratio itself.
    const [lo, hi] = DISTORTION_COLOUR_MAP.domain;
    const min = 2 ** shown.min,
      max = 2 ** shown.max;
    return {
      kind: 'distortion',
      title: 'Area change heat map',
      tooltip:
        'Each vertex’s surrounding area posed against at rest (log2 of the one-ring area ratio): blue shrinks (candy-wrapper collapse), red grows (bulge)',
      colours: coloursOf(DISTORTION_COLOUR_MAP),
      low: areaRatioText(2 ** lo),
      high: areaRatioText(2 ** hi),
      units: '× area',
      scale: [2 ** lo, 2 ** hi],
      data: {
        min,
        max,
        at: [alongBar(DISTORTION_COLOUR_MAP, shown.min), alongBar(DISTORTION_COLOUR_MAP, shown.max)],
        text: `on the mesh: ×${plainNumber(min)} to ×${plainNumber(max)}`,
      },
      note: null,
    };
  }
  const blank = shown.fullScale === 0;
  const displacement = shown.map === 'displacement';
  const percent = (x: number) => `${plainNumber((100 * x) / doc.diagonal)}% of the mesh size`;
  // The map's domain is in fractions of the full scale; the legend is in mesh units.
  const [lo, hi] = MAGNITUDE_COLOUR_MAP.domain;
  const fraction = (x: number) => (blank ? 0 : x / shown.fullScale);
  return {
    kind: shown.map,
    title: displacement ? 'Correction from the examples' : 'Distance to the example at its pose',
    tooltip: displacement
      ? 'How far the examples move each vertex at this pose, |Σ_j a_j δ_j| (Eq. 7); full colour at the largest correction of any example'
      : 'How far the skinned mesh is from the example sculpted at this pose; full colour at 0.1% of the bounding-box diagonal',
    colours: coloursOf(MAGNITUDE_COLOUR_MAP),
    low: plainNumber(lo * shown.fullScale),
    high: blank ? '–' : plainNumber(hi * shown.fullScale),
    units: 'mesh units',
    scale: [lo * shown.fullScale, hi * shown.fullScale],
    data: blank
      ? null
      : {
          min: shown.min,
          max: shown.max,
          at: [alongBar(MAGNITUDE_COLOUR_MAP, fraction(shown.min)), alongBar(MAGNITUDE_COLOUR_MAP, fraction(shown.max))],
          text: `on the mesh: ${plainNumber(shown.min)} to ${plainNumber(shown.max)} (up to ${percent(shown.max)})`,
        },
    note: blank ? deformation.exampleMapNote : null,
  };
}

/**
 * Keeps the legend showing the heat map on screen. The weight map's range is kept until the weights change (another
 * weights object, or rows of it edited in place, which the store announces), so a posed frame does not scan them.
 */
export class HeatMapLegendFeed {
  private cached: { weights: SceneDocument['weights']; bone: number; edits: number; range: { min: number; max: number } } | null = null;
  /** how many times rows of the weights were edited in place */
  private edits = 0;

  constructor(
    private readonly legend: Pick<HeatMapLegend, 'show'>,
    private readonly host: () => HeatMapLegendHost,
    store: Pick<SceneStore, 'subscribe'>,
  ) {
    store.subscribe((change) => {
      if (change.kind === 'weight-rows') this.edits++;
    });
  }

  refresh(): void {
    const host = this.host();
    this.legend.show(heatMapLegendState({ ...host, weightRange: (bone) => this.weightRange(host.doc, bone) }));
  }

  private weightRange(doc: SceneDocument, bone: number): { min: number; max: number } {
    const c = this.cached;
    if (c && c.weights === doc.weights && c.bone === bone && c.edits === this.edits) return c.range;
    const range = weightRange(doc, bone);
    this.cached = { weights: doc.weights, bone, edits: this.edits, range };
    return range;
  }
}
