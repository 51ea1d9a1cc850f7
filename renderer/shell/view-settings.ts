/**
 * The settings sections the shell owns (settings-store.ts): how the scene is viewed — view mode, iso-lines,
 * wireframe, skeleton, the as-exported preview, the selected bone — and the export's weight storage. Their values
 * live in the views and the app; these read them for a project and put a project's back. The influences the view
 * and the export use are saved with them but follow the scene's one max influences (the paint section's) back.
 */
import type { GltfWeightComponent } from '../../workers/formats/gltf-skin-weights.ts';
import { pick, type SettingsSection } from '../project/settings-store.ts';
import { VIEW_MODES, type ViewMode } from '../view/view-modes.ts';

const WEIGHT_COMPONENTS: readonly GltfWeightComponent[] = ['float', 'unsigned-byte', 'unsigned-short'];

/** What the view section reads and sets. */
export interface ViewSettingsHost {
  readonly views: {
    readonly viewMode: ViewMode;
    readonly isoLines: boolean;
    readonly wireframe: boolean;
    readonly overlay: { readonly visible: boolean };
  };
  readonly influenceSetting: number;
  readonly asExported: boolean;
  readonly selectedBone: number;
  setView(mode: ViewMode): void;
  setIsoLines(on: boolean): void;
  setWireframe(on: boolean): void;
  setSkeletonVisible(on: boolean): void;
  /** the view and the export take the scene's max influences (restored with the paint settings) */
  followMaxInfluences(): void;
  setAsExported(on: boolean): void;
  selectBone(bone: number): void;
  /** the as-exported preview's title follows the export settings */
  showExportSettings(): void;
}

export function viewSettingsSection(host: ViewSettingsHost): SettingsSection<'view'> {
  return {
    save: () => ({
      mode: host.views.viewMode,
      isoLines: host.views.isoLines,
      wireframe: host.views.wireframe,
      skeleton: host.views.overlay.visible,
      influences: host.influenceSetting,
      asExported: host.asExported,
      selectedBone: host.selectedBone,
    }),
    // After the paint and export sections: the view and the preview show the scene's max influences.
    restore: (view) => {
      host.followMaxInfluences();
      host.setView(pick<ViewMode>(view.mode, VIEW_MODES, host.views.viewMode));
      host.setIsoLines(view.isoLines);
      host.setWireframe(view.wireframe);
      host.setSkeletonVisible(view.skeleton);
      // The reader gives -1 for a bone the skeleton lacks.
      host.selectBone(view.selectedBone);
      if (view.asExported !== host.asExported) host.setAsExported(view.asExported);
      else host.showExportSettings();
    },
  };
}

/** The export's weight storage, as the export dialog keeps it (its influences are the scene's max influences). */
export function exportSettingsSection(settings: { influences: number; weightComponent: GltfWeightComponent }): SettingsSection<'export'> {
  return {
    save: () => ({ format: 'glb', ...settings }),
    restore: (saved) => {
      settings.weightComponent = pick(saved.weightComponent, WEIGHT_COMPONENTS, settings.weightComponent);
    },
  };
}
