export type Theme = 'system' | 'light' | 'dark';

const THEME_KEY = 'dashboard.theme';

/** The theme the person picked ('system' follows prefers-color-scheme). */
export function storedTheme(): Theme {
  try {
    const value = window.localStorage.getItem(THEME_KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system';
  }
}

/** Sets `data-theme` on <html> (the stylesheet's `color-scheme`, which its light-dark() colours follow) and remembers the choice. */
export function applyTheme(theme: Theme, remember = false): void {
  const root = document.documentElement;
  if (theme === 'system') root.removeAttribute('data-theme');
  else root.setAttribute('data-theme', theme);
  if (!remember) return;
  try {
    if (theme === 'system') window.localStorage.removeItem(THEME_KEY);
    else window.localStorage.setItem(THEME_KEY, theme);
  } catch {
    // no storage: the choice lasts for this page
  }
}
