import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// `vite` (dev) forwards the API and better-auth to a running service; the built app is served by the service itself.
const api = process.env.DASHBOARD_DEV_API ?? 'http://localhost:3000';

export default defineConfig({
  base: '/dashboard/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // no inline scripts or data: modules: the service's Content-Security-Policy allows scripts from 'self' only
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
  server: { proxy: { '/trpc': api, '/dashboard/api': api } },
});
