// Fails unless every package of package-lock.json is installed in
// node_modules/ at the version it pins. Plain JavaScript: it runs before the
// TypeScript compiler is known to be there.
//   node check-installed.js <dir of package-lock.json>
"use strict";
const fs = require("fs");
const path = require("path");

const dir = process.argv[2];
const lock = JSON.parse(fs.readFileSync(path.join(dir, "package-lock.json"), "utf8"));
for (const [where, pkg] of Object.entries(lock.packages)) {
  if (!where) continue; // the project itself
  let got;
  try {
    const manifest = fs.readFileSync(path.join(dir, where, "package.json"), "utf8");
    // The SDK writes its version with a leading "v".
    got = JSON.parse(manifest).version.replace(/^v/, "");
  } catch {
    got = undefined;
  }
  if (got !== pkg.version) {
    console.error(
      `${where} is ${got ?? "missing"}, package-lock.json pins ${pkg.version}: ` +
        "run npm ci --prefix dashboards/grafana/generator (setup.sh does)",
    );
    process.exit(1);
  }
}
