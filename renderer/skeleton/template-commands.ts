/**
 * The template rig's commands: the Template panel, the template and its options, the front view the markers are
 * placed in, a marker put on a point, the markers back at their defaults, and the fit — alone (one undo step), or
 * followed by harmonic weights from automatic handles. The binding runs in a worker, so "Fit and bind" is two undo
 * steps: the fit, then Compute weights, as when the user runs them one after the other.
 */
import type { HandlersFor } from '../commands/command-handlers.ts';
import { toggled } from '../commands/command-handlers.ts';
import type { BindingController, HandleSource } from '../bind/binding-controller.ts';
import type { TemplateController } from './template-controller.ts';

/** What the template commands use of the app. */
export interface TemplateCommandsHost {
  readonly template: Pick<TemplateController, 'setKind' | 'setFingers' | 'setMarker' | 'resetMarkers' | 'fit'>;
  readonly templatePanel: { readonly open: boolean; setOpen(open: boolean): void };
  readonly binding: Pick<BindingController, 'startBind' | 'options'>;
  /** the camera looks along −z at the whole mesh */
  frontView(): void;
}

export type TemplateCommandId =
  | 'template.panel'
  | 'template.options'
  | 'template.frontView'
  | 'template.marker'
  | 'template.resetMarkers'
  | 'template.fit'
  | 'template.fitAndBind';

/**
 * The automatic handles a fitted template is bound with: the rule the binding options name, or the bone cylinders
 * when they name the handles in the scene (those belonged to the skeleton the fit replaced).
 */
export function templateHandleSource(chosen: HandleSource): Exclude<HandleSource, 'current'> {
  return chosen === 'current' ? 'cylinder' : chosen;
}

export function templateCommands(app: TemplateCommandsHost): HandlersFor<TemplateCommandId> {
  const { template, templatePanel, binding } = app;
  return {
    'template.panel': { run: () => toggled(!templatePanel.open, (on) => templatePanel.setOpen(on)), checked: () => templatePanel.open },
    'template.options': {
      run: ({ kind, fingers }) => {
        if (kind !== undefined) template.setKind(kind);
        if (fingers !== undefined) template.setFingers(fingers);
      },
    },
    'template.frontView': { run: () => app.frontView() },
    'template.marker': { run: ({ marker, point }) => template.setMarker(marker, point) },
    'template.resetMarkers': { run: () => template.resetMarkers() },
    'template.fit': { run: () => template.fit() },
    'template.fitAndBind': {
      run: () => {
        template.fit();
        return binding.startBind({ source: templateHandleSource(binding.options.source) });
      },
    },
  };
}
