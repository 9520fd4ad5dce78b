// Writes the dashboards as JSON into DIR, or with --check fails when a file
// there differs from what the sources produce (../../generate.sh runs it).
//   node <compiled>/generate.js --out DIR [--check]
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";

import { congestion } from "./congestion";
import { fabric } from "./fabric";
import { health } from "./health";
import { linkOptics } from "./link-optics";
import { overview } from "./overview";
import { probeResources } from "./probe-resources";

const DASHBOARDS: Record<string, () => Dashboard> = {
  "rnic-overview.json": overview,
  "rnic-congestion.json": congestion,
  "rnic-health.json": health,
  "rnic-probe-resources.json": probeResources,
  "rnic-link-optics.json": linkOptics,
  "rnic-fabric.json": fabric,
};

// Keys sorted at every level, two-space indent: stable, reviewable diffs
// whatever order the SDK's builders set fields in.
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      out[key] = sortKeys((value as Record<string, unknown>)[key]);
    }
    return out;
  }
  return value;
}

export function render(build: () => Dashboard): string {
  return JSON.stringify(sortKeys(build()), null, 2) + "\n";
}

function main(argv: string[]): number {
  const check = argv.includes("--check");
  const outAt = argv.indexOf("--out");
  if (outAt < 0 || !argv[outAt + 1]) {
    console.error("usage: generate.js --out DIR [--check]");
    return 2;
  }
  const outDir = argv[outAt + 1];
  const stale: string[] = [];
  for (const [name, build] of Object.entries(DASHBOARDS)) {
    const path = join(outDir, name);
    const text = render(build);
    if (check) {
      let current: string | undefined;
      try {
        current = readFileSync(path, "utf8");
      } catch {
        current = undefined;
      }
      if (current !== text) stale.push(name);
    } else {
      writeFileSync(path, text);
    }
  }
  if (stale.length) {
    console.error(
      "out of date (run dashboards/grafana/generate.sh): " + stale.join(", "),
    );
    return 1;
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
