/** Boot: the viewport, the timeline and the bridge, then the app and its test hook; a failure is shown, not thrown. */
import { errorMessage } from '../workers/scene/scene-document.ts';
import { getBridge } from './io/bridge.ts';
import { Timeline } from './panels/timeline.ts';
import { App } from './shell/app.ts';
import { appTestHook } from './shell/app-test-hook.ts';
import { installTestHook } from './shell/test-hook.ts';
import { Viewport } from './view/viewport.ts';

function boot(): void {
  try {
    const container = document.getElementById('viewport');
    const timelineBar = document.getElementById('timeline');
    if (!container || !timelineBar) throw new Error('the page is missing #viewport or #timeline');
    const viewport = new Viewport(container);
    let app: App | null = null;
    const timeline = new Timeline(timelineBar, () => app?.onSeek());
    app = new App(viewport, timeline, getBridge());
    installTestHook(appTestHook(app));
  } catch (error) {
    const message = `Rigwright could not start: ${errorMessage(error)}`;
    const banner = document.getElementById('error-banner');
    const text = banner?.querySelector('.error-message');
    if (banner && text) {
      text.textContent = message;
      banner.hidden = false;
    }
    console.error(message);
  }
}

boot();
