/**
 * The TV layout: the whole board on one screen, nothing to scroll, type
 * sized to be read across a room (wallboard.css, `html[data-layout='tv']`).
 *
 * `?tv=1` turns it on, `?tv=0` off; without the parameter it is on while the
 * page fills a 1080p screen or larger (full screen or kiosk mode: a viewport
 * of at least 1900 × 1040 CSS px), which a desk browser window with its
 * toolbars never is.
 */
const TV_SCREEN = '(min-width: 1900px) and (min-height: 1040px)';
/** Width ÷ height a tile should come close to (name, state, caller and the day's figures on four short lines). */
const TILE_ASPECT = 1.5;

export function installLayout(): void {
  const forced = new URLSearchParams(location.search).get('tv');
  const screen = matchMedia(TV_SCREEN);
  const list = document.getElementById('agents');
  const apply = () => {
    const tv = forced === '1' || (forced !== '0' && screen.matches);
    document.documentElement.dataset.layout = tv ? 'tv' : 'desk';
    if (list) fitTiles(list);
  };
  apply();
  screen.addEventListener('change', apply);
  if (!list) return;
  // Re-fit when the number of tiles or the space for them changes.
  new MutationObserver(() => fitTiles(list)).observe(list, { childList: true });
  new ResizeObserver(() => fitTiles(list)).observe(list);
}

/**
 * In the TV layout, the column count that gives `n` tiles the largest size
 * close to TILE_ASPECT in the space of the list, so every agent fits; the
 * tiles' type scales with their size (container query units in the CSS).
 */
function fitTiles(list: HTMLElement): void {
  if (document.documentElement.dataset.layout !== 'tv') {
    list.style.removeProperty('--cols');
    list.style.removeProperty('--rows');
    return;
  }
  const n = Math.max(1, list.children.length);
  const gap = parseFloat(getComputedStyle(list).rowGap) || 0;
  const width = list.clientWidth;
  const height = list.clientHeight;
  if (!width || !height) return;
  let best = { cols: 1, rows: n, score: -1 };
  for (let cols = 1; cols <= n; cols++) {
    const rows = Math.ceil(n / cols);
    const w = (width - gap * (cols - 1)) / cols;
    const h = (height - gap * (rows - 1)) / rows;
    const score = Math.min(w / TILE_ASPECT, h);
    if (score > best.score) best = { cols, rows, score };
  }
  // At least 4 rows' worth of height per tile, so a few agents do not get giant tiles.
  list.style.setProperty('--cols', String(best.cols));
  list.style.setProperty('--rows', String(Math.max(best.rows, 4)));
}
