import { signal } from '@preact/signals';

/**
 * Light or dark: the system's preference until the user chooses, then the choice (localStorage,
 * per browser). Applied as `data-theme` on <html>; app.css holds both palettes.
 */
export type Theme = 'light' | 'dark';
const KEY = 'callcenter.app.theme';

function initial(): Theme {
  const saved = localStorage.getItem(KEY);
  if (saved === 'light' || saved === 'dark') return saved;
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export const theme = signal<Theme>(initial());

export function applyTheme(t: Theme = theme.value): void {
  document.documentElement.dataset.theme = t;
}

export function toggleTheme(): void {
  theme.value = theme.value === 'dark' ? 'light' : 'dark';
  localStorage.setItem(KEY, theme.value);
  applyTheme();
}
