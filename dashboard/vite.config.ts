import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The dashboard build: `npm run build` writes static files to `dashboard/dist/`, which the
 * collector serves at `/`. No public folder and no source maps: the server only serves
 * `index.html` and `assets/`.
 */
export default defineConfig({
  root,
  base: '/',
  publicDir: false,
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 600,
  },
  server: {
    // `vite --config dashboard/vite.config.ts` during development, against `npm start` on 7070.
    proxy: { '/api': 'http://127.0.0.1:7070', '/v1': 'http://127.0.0.1:7070' },
  },
});
