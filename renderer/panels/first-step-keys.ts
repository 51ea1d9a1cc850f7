/**
 * The browser-storage keys of the first step (the start hint's "Show at startup" and whether the tour was seen), in
 * a module of their own with no imports and no styles, so that the page and the end-to-end tests read the same keys.
 */

/** Storage key: 'off' once the artist unticked "Show at startup" on the start hint. */
export const START_HINT_KEY = 'rigwright.startHint';
/** Storage key: '1' once the tour was finished or skipped (it starts by itself only before that). */
export const TOUR_SEEN_KEY = 'rigwright.tourSeen';
