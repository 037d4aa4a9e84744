// Asks every probe deploy/kubernetes declares of the topology test's running roles (scripts/topology-test.sh):
//   node probes.ts RENDERED.yaml PORTS_JSON
// RENDERED.yaml is `kubectl kustomize deploy/kubernetes`; PORTS_JSON maps a container's name and containerPort to the
// ports its processes listen on here ({"api":{"8080":[41001,41002]},…}). Each probe's path must answer 200 on each.
import { readFileSync } from 'node:fs';

type Yaml = string | null | Yaml[] | { [key: string]: Yaml };
interface Line {
  indent: number;
  text: string;
}

function scalar(text: string): Yaml {
  if (text === '{}') return {};
  if (text === '[]') return [];
  if (/^(".*"|'.*')$/.test(text)) return text.slice(1, -1);
  return text;
}

/** The block at lines[at] with this indent: kustomize's output is block style, lists at their key's indent. */
function block(lines: Line[], at: number, indent: number): [Yaml, number] {
  const isItem = (line: Line | undefined) => line?.indent === indent && /^-( |$)/.test(line.text);
  if (isItem(lines[at])) {
    const list: Yaml[] = [];
    while (isItem(lines[at])) {
      const rest = lines[at]!.text.slice(1).trimStart();
      if (rest === '') {
        const [value, next] = block(lines, at + 1, lines[at + 1]!.indent);
        list.push(value);
        at = next;
      } else if (/^[^'"][^:]*:( |$)/.test(rest)) {
        lines[at] = { indent: indent + 2, text: rest }; // "- key: value" opens a map whose keys line up with key
        const [value, next] = block(lines, at, indent + 2);
        list.push(value);
        at = next;
      } else {
        list.push(scalar(rest));
        at++;
      }
    }
    return [list, at];
  }
  const map: { [key: string]: Yaml } = {};
  while (lines[at]?.indent === indent && !isItem(lines[at])) {
    const text = lines[at]!.text;
    const colon = text.search(/:( |$)/);
    const key = text.slice(0, colon).replace(/^(["'])(.*)\1$/, '$2');
    const rest = text.slice(colon + 1).trim();
    const child = lines[at + 1];
    if (rest !== '') {
      map[key] = scalar(rest);
      at++;
    } else if (child && (child.indent > indent || (child.indent === indent && /^-( |$)/.test(child.text)))) {
      [map[key], at] = block(lines, at + 1, child.indent);
    } else {
      map[key] = null;
      at++;
    }
  }
  return [map, at];
}

function documents(text: string): Yaml[] {
  return text
    .split(/^---$/m)
    .map((doc) =>
      doc
        .split('\n')
        .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'))
        .map((l) => ({ indent: l.length - l.trimStart().length, text: l.trim() })),
    )
    .filter((lines) => lines.length > 0)
    .map((lines) => block(lines, 0, 0)[0]);
}

const [file, portsJson] = process.argv.slice(2);
if (!file || !portsJson) throw new Error('usage: probes.ts RENDERED.yaml PORTS_JSON');
const running = JSON.parse(portsJson) as Record<string, Record<string, number[]>>;
const get = (value: Yaml, ...path: string[]): Yaml =>
  path.reduce<Yaml>((v, key) => (v && typeof v === 'object' && !Array.isArray(v) ? (v[key] ?? null) : null), value);

const problems: string[] = [];
let answered = 0;
for (const doc of documents(readFileSync(file, 'utf8'))) {
  if (get(doc, 'kind') !== 'Deployment') continue;
  const containers = get(doc, 'spec', 'template', 'spec', 'containers');
  for (const container of Array.isArray(containers) ? containers : []) {
    const name = String(get(container, 'name'));
    const ports = get(container, 'ports');
    const byName = new Map(
      (Array.isArray(ports) ? ports : []).map((p) => [String(get(p, 'name')), String(get(p, 'containerPort'))]),
    );
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      const httpGet = get(container, probe, 'httpGet');
      if (!httpGet) continue;
      const path = String(get(httpGet, 'path'));
      const port = String(get(httpGet, 'port'));
      const containerPort = byName.get(port) ?? port;
      const here = running[name]?.[containerPort];
      if (!here?.length) {
        problems.push(`${name} ${probe} ${path} on ${port} (${containerPort}): no running process has that port`);
        continue;
      }
      for (const local of here) {
        const url = `http://127.0.0.1:${local}${path}`;
        const res = await fetch(url, { signal: AbortSignal.timeout(3000) }).catch((e: Error) => e);
        if (res instanceof Error || res.status !== 200)
          problems.push(`${name} ${probe} ${url}: ${res instanceof Error ? res.message : res.status}`);
        else answered++;
        console.log(
          `probes: ${name} ${probe} ${path} on ${port} (${containerPort} -> :${local}): ${res instanceof Error ? res.message : res.status}`,
        );
      }
    }
  }
}
if (answered === 0) problems.push('no probe found in the rendered manifests');
for (const problem of problems) console.error(`probes: FAIL: ${problem}`);
if (problems.length > 0) process.exit(1);
console.log(`probes: all ${answered} probe requests of deploy/kubernetes answered 200`);
