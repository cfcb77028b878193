// Remove installed packages built for another OS or CPU (their package.json `os` / `cpu` say
// so): OpenClaw bundles prebuilt native drivers for every platform (~190 MB not for linux-x64).
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const fits = (list, value) => !Array.isArray(list) || list.some((v) => v === value || (v.startsWith("!") && v !== "!" + value));
let freed = 0;
function walk(dir, depth) {
  if (depth > 8 || !existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const pkgDir = join(dir, name);
    if (name.startsWith("@")) { walk(pkgDir, depth); continue; }
    const manifest = join(pkgDir, "package.json");
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, "utf8"));
    if (!fits(pkg.os, process.platform) || !fits(pkg.cpu, process.arch)) { rmSync(pkgDir, { recursive: true }); freed++; continue; }
    walk(join(pkgDir, "node_modules"), depth + 1);
  }
}
walk(process.argv[2], 0);
console.log(`removed ${freed} packages for other platforms`);
