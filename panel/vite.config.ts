import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Built files go to panel/dist: index.html, and hashed assets that the server serves under /assets/
// with a one-year immutable cache. `npm run dev -w panel` proxies the API to a running server.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
    chunkSizeWarningLimit: 400,
  },
  server: {
    proxy: {
      '/api': { target: process.env.MON_PANEL_API ?? 'http://127.0.0.1:8080', changeOrigin: false },
    },
  },
});
