// Leaves in a production install (`pnpm install --prod`) only what the given workspace packages need at run time: the
// closure of their `dependencies` and `optionalDependencies`. pnpm's lockfile also links the optional peers that the
// workspace's development tools happened to satisfy (vitest and prisma for better-auth, typescript for viem, React for
// Prisma Studio), and a prod install keeps them; a peer is the consumer's to provide, so one that no package of the
// closure depends on is not part of the runtime. Removes every other package of node_modules/.pnpm and the links
// left dangling, prints what it kept and removed, and fails when a needed dependency is missing.
//   node scripts/prune-runtime.mjs ROOT PACKAGE_DIR...
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

const [rootArg, ...starts] = process.argv.slice(2);
if (!rootArg || starts.length === 0) {
  console.error('usage: node scripts/prune-runtime.mjs ROOT PACKAGE_DIR...');
  process.exit(2);
}
const root = resolve(rootArg);
const store = join(root, 'node_modules', '.pnpm');

/** Where Node would find `name` from a package in `dir`: each ancestor's node_modules, as require() walks them. */
function locate(dir, name) {
  for (let at = dir; ; at = dirname(at)) {
    if (basename(at) !== 'node_modules') {
      const candidate = join(at, 'node_modules', name);
      if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    }
    if (at === dirname(at)) return undefined;
  }
}

// dependencies the workspace's overrides remove (`"parent>child": "-"`), which pnpm does not install
const overrides = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).pnpm?.overrides ?? {};
const dropped = new Set(Object.keys(overrides).filter((key) => overrides[key] === '-'));

const reached = new Set();
const missing = [];
const queue = starts.map((dir) => realpathSync(resolve(root, dir)));
while (queue.length > 0) {
  const dir = queue.pop();
  if (reached.has(dir)) continue;
  reached.add(dir);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const needed = Object.keys(manifest.dependencies ?? {});
  const optional = Object.keys(manifest.optionalDependencies ?? {});
  for (const name of [...needed, ...optional]) {
    const found = locate(dir, name);
    if (found) queue.push(found);
    else if (!optional.includes(name) && !dropped.has(`${manifest.name}>${name}`))
      missing.push(`${name} (needed by ${manifest.name})`);
  }
}
if (missing.length > 0) {
  console.error(`prune-runtime: not installed: ${missing.join(', ')}`);
  process.exit(1);
}

// a store entry (`name@version_peers`) holds its package as a real folder, its dependencies as links beside it
const removed = [];
let kept = 0;
for (const entry of readdirSync(store)) {
  const modules = join(store, entry, 'node_modules');
  if (entry === 'node_modules' || !existsSync(modules)) continue;
  const own = packageFolders(modules).filter((dir) => !lstatSync(dir).isSymbolicLink());
  if (own.some((dir) => reached.has(realpathSync(dir)))) {
    kept++;
    continue;
  }
  rmSync(join(store, entry), { recursive: true, force: true });
  removed.push(entry);
}

// links to removed packages: the peers' links inside kept entries, pnpm's hoisted links, workspace links and bins
let dangling = 0;
const linkRoots = [
  join(root, 'node_modules'),
  ...readdirSync(join(root, 'packages')).map((p) => join(root, 'packages', p, 'node_modules')),
];
for (const top of linkRoots) if (existsSync(top)) dangling += removeDanglingLinks(top);

console.log(`prune-runtime: kept ${kept} packages; removed ${removed.length} and ${dangling} links to them`);
for (const entry of removed.sort()) console.log(`  - ${entry}`);

/** The package folders of a node_modules folder (scoped ones one level down). */
function packageFolders(modules) {
  const found = [];
  for (const name of readdirSync(modules)) {
    if (name.startsWith('.')) continue;
    const path = join(modules, name);
    if (name.startsWith('@')) for (const inner of readdirSync(path)) found.push(join(path, inner));
    else found.push(path);
  }
  return found;
}

/** Removes the symbolic links under `dir` whose target is gone, without following links into other folders. */
function removeDanglingLinks(dir) {
  let count = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) {
      if (!targetExists(path)) {
        rmSync(path);
        count++;
      }
    } else if (stat.isDirectory()) {
      count += removeDanglingLinks(path);
    }
  }
  return count;
}

function targetExists(path) {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
