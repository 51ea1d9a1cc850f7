/**
 * The skeleton templates the Template panel fits. No run-time imports (the kind's type is the fitting's own): the
 * command catalog reads it without reaching the template controller.
 */
import type { TemplateKind } from '../../workers/rig/template-rig.ts';

export type { TemplateKind };
/** The templates, in the order the Template panel and the template command list them. */
export const TEMPLATE_KINDS = ['humanoid', 'quadruped'] as const satisfies readonly TemplateKind[];
