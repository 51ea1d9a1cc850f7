/**
 * The heat map's legend, over the bottom of the viewport: the colour bar (the colours the mesh shows, lowest value on
 * the left), the values at its ends with their units, and the range of values on the mesh now, marked on the bar.
 * Shown while a heat map is; it draws what it is told (the shell works out the state).
 */
import { childElement, element } from './controls.ts';
import './heat-map-legend.css';

export interface HeatMapLegendState {
  /** which heat map: the selected bone's weight, the area change, an examples' map, or the last weight transfer's outcome */
  kind: 'weight' | 'distortion' | 'displacement' | 'error' | 'transfer';
  title: string;
  /** what the map shows and the paper's name for it */
  tooltip: string;
  /** the bar's colours, evenly spaced from its low end to its high end (CSS colours) */
  colours: readonly string[];
  /** true: the colours are categories, drawn as equal blocks with hard edges (low, units and high name them) */
  steps?: boolean;
  /** the bar's ends as shown ('0', '×0.5 (half)') and the units they are in */
  low: string;
  high: string;
  units: string;
  /** the bar's ends as numbers, in `units` */
  scale: readonly [number, number];
  /** the lowest and highest value on the mesh now, in `units`, with where they sit along the bar (0 to 1); null when blank */
  data: { min: number; max: number; at: readonly [number, number]; text: string } | null;
  /** why the map is blank, or what else to know */
  note: string | null;
}

export class HeatMapLegend {
  private readonly root: HTMLElement;
  private readonly title: HTMLElement;
  private readonly bar: HTMLElement;
  private readonly range: HTMLElement;
  private readonly low: HTMLElement;
  private readonly units: HTMLElement;
  private readonly high: HTMLElement;
  private readonly dataText: HTMLElement;
  private readonly note: HTMLElement;
  /** the state drawn, so a frame that changes nothing touches no element */
  private drawn = '';

  constructor(container: HTMLElement) {
    this.root = element('figure', 'heat-map-legend');
    this.root.id = 'heat-map-legend';
    this.root.setAttribute('aria-label', 'Heat map legend');
    this.root.hidden = true;
    this.title = childElement('figcaption', 'legend-title', this.root);
    this.bar = childElement('div', 'legend-bar', this.root);
    this.range = childElement('span', 'legend-range', this.bar);
    const ends = childElement('div', 'legend-ends', this.root);
    this.low = childElement('span', 'legend-min', ends);
    this.units = childElement('span', 'legend-units', ends);
    this.high = childElement('span', 'legend-max', ends);
    this.dataText = childElement('div', 'legend-data', this.root);
    this.note = childElement('div', 'legend-note', this.root);
    container.append(this.root);
  }

  /** Shows the legend of this heat map, or hides it (null: no heat map on screen). */
  show(state: HeatMapLegendState | null): void {
    const key = JSON.stringify(state);
    if (key === this.drawn) return;
    this.drawn = key;
    this.root.hidden = state === null;
    if (!state) return;
    const { dataset } = this.root;
    dataset.kind = state.kind;
    dataset.min = String(state.scale[0]);
    dataset.max = String(state.scale[1]);
    dataset.units = state.units;
    this.root.title = state.tooltip;
    this.title.textContent = state.title;
    const last = state.colours.length - 1;
    const percent = (x: number) => `${(100 * x).toFixed(2)}%`;
    const stops = state.steps
      ? state.colours.map((c, k) => `${c} ${percent(k / (last + 1))} ${percent((k + 1) / (last + 1))}`)
      : state.colours.map((c, k) => `${c} ${percent(k / last)}`);
    this.bar.style.background = `linear-gradient(to right, ${stops.join(', ')})`;
    this.low.textContent = state.low;
    this.units.textContent = state.units;
    this.high.textContent = state.high;
    this.range.hidden = state.data === null;
    this.dataText.hidden = state.data === null;
    if (state.data) {
      dataset.dataMin = String(state.data.min);
      dataset.dataMax = String(state.data.max);
      const [from, to] = state.data.at;
      this.range.style.left = `${(100 * from).toFixed(2)}%`;
      this.range.style.width = `${(100 * Math.max(to - from, 0)).toFixed(2)}%`;
      this.dataText.textContent = state.data.text;
    } else {
      delete dataset.dataMin;
      delete dataset.dataMax;
    }
    this.note.hidden = state.note === null;
    this.note.textContent = state.note ?? '';
  }
}
