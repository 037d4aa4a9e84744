import { useState } from 'react';
import { applyTheme, storedTheme, type Theme } from '../lib/theme.ts';

/** Light, dark, or the system's choice, remembered in this browser. */
export function ThemeSelect() {
  const [theme, setTheme] = useState<Theme>(storedTheme);
  function choose(value: string) {
    const next: Theme = value === 'light' || value === 'dark' ? value : 'system';
    setTheme(next);
    applyTheme(next, true);
  }
  return (
    <label className="inline">
      <span className="narrow-hidden">Theme</span>
      <select value={theme} onChange={(e) => choose(e.target.value)}>
        <option value="system">System</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  );
}
