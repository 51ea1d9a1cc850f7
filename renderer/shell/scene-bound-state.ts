/**
 * The view state that belongs to the scene shown, not to the artist's way of working: the examples' heat map, the
 * distortion heat map, the unposed examples' row, the examples' unposing. A new scene starts without them (a map of
 * the previous scene's examples would colour the new mesh and hide its look), and while one is on the status line
 * says so, each field a button that switches it off. The skinning method, the view mode, the influences and the
 * tools are the artist's and stay.
 */
import type { StatusField } from '../panels/app-chrome.ts';
import type { ExampleMapMode } from '../deform/deformation-settings.ts';

/** What the scene-bound state is kept in. */
export interface SceneBoundHost {
  readonly deformation: {
    readonly exampleMap: ExampleMapMode;
    readonly heatMap: boolean;
    setExampleMap(mode: ExampleMapMode): void;
    setHeatMap(on: boolean): void;
  };
  readonly unposedDisplay: { readonly shown: boolean; hide(): void };
  readonly posespace: { sceneOpened(): void };
  /** the view draws the weights as the export stores them (its strongest influences, quantized) */
  readonly asExported: boolean;
  /** the export's weight settings the preview follows */
  readonly exportDialog: { readonly settings: { readonly influences: number; readonly weightComponent: string } };
}

/** The examples' maps in the status line's words. */
const EXAMPLE_MAP_TEXT: Record<Exclude<ExampleMapMode, 'off'>, string> = {
  displacement: 'example displacement map',
  error: 'example error map',
};

/** A new scene: every overlay of the previous one goes, and its unposing stops. */
export function resetSceneBoundState(app: SceneBoundHost): void {
  const { deformation } = app;
  if (deformation.exampleMap !== 'off') deformation.setExampleMap('off');
  if (deformation.heatMap) deformation.setHeatMap(false);
  if (app.unposedDisplay.shown) app.unposedDisplay.hide();
  app.posespace.sceneOpened();
}

/**
 * The overlays on now, as status line fields: each says what colours or replaces the mesh, and a click on it
 * switches it off (its tooltip is the command's). The preview as exported is one (it changes the weights the mesh
 * is drawn with, and its colours in a weight view), named with what it previews: '4 × unsigned byte, LBS'; it
 * belongs to the export settings, not to the scene, so resetSceneBoundState leaves it. Iso-lines are part of the
 * weight map the view mode names, and x-ray changes what a lasso selects, not what the mesh shows: neither is here.
 */
export function overlayFields(app: SceneBoundHost): StatusField[] {
  const fields: StatusField[] = [];
  const map = app.deformation.exampleMap;
  if (map !== 'off') fields.push({ text: `overlay: ${EXAMPLE_MAP_TEXT[map]} ×`, command: 'examples.mapOff' });
  else if (app.deformation.heatMap) fields.push({ text: 'overlay: area change heat map ×', command: 'skin.heatMap' });
  if (app.unposedDisplay.shown) fields.push({ text: 'overlay: unposed examples ×', command: 'examples.showUnposed' });
  if (app.asExported) {
    const { influences, weightComponent } = app.exportDialog.settings;
    fields.push({ text: `overlay: as exported, ${influences} × ${weightComponent.replace('-', ' ')}, LBS ×`, command: 'view.asExported' });
  }
  return fields;
}
