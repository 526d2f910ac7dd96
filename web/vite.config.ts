// The editor's front end: built into the Python package (blocksim/web/static), stable file
// names (no hashes) so that a rebuild gives a small diff, and build-info.json holding a sha256
// over the sources (tests/web/test_static_build.py recomputes it to catch a missed rebuild).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { defineConfig, type Plugin } from "vite";
import react from "@vitejs/plugin-react";

const root = resolve(__dirname);
const outDir = resolve(root, "../blocksim/web/static");

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

/** sha256 over (relative path, NUL, content, NUL) of every source file, sorted by path
 * (tests/web/test_static_build.py computes the same). */
export function sourceHash(): { sha256: string; files: string[] } {
  const top = ["package.json", "package-lock.json", "tsconfig.json", "vite.config.ts", "index.html"];
  const files = [...top.map((f) => join(root, f)), ...walk(join(root, "src"))]
    .map((f) => relative(root, f).split(sep).join("/"))
    .sort();
  const h = createHash("sha256");
  for (const f of files) {
    h.update(f + "\0");
    h.update(readFileSync(join(root, f)));
    h.update("\0");
  }
  return { sha256: h.digest("hex"), files };
}

function buildInfo(): Plugin {
  return {
    name: "blocksim-build-info",
    apply: "build",
    closeBundle() {
      const { sha256, files } = sourceHash();
      writeFileSync(join(outDir, "build-info.json"),
        JSON.stringify({ sources_sha256: sha256, files }, null, 1) + "\n");
    },
  };
}

export default defineConfig({
  base: "./",
  plugins: [react(), buildInfo()],
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: "assets",
    sourcemap: false,
    chunkSizeWarningLimit: 4000,
    rollupOptions: {
      output: {
        entryFileNames: "assets/index.js",
        chunkFileNames: "assets/[name].js",
        assetFileNames: "assets/[name][extname]",
        inlineDynamicImports: true,
      },
    },
  },
});
