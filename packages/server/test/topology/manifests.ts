// deploy/'s files as the deploy tests read them: YAML parsed (anchors and `<<` merges resolved, as Compose and
// kustomize do), the Kubernetes base as its kustomization lists it, env files as key=value.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const deployDir = join(root, 'deploy');

export type Doc = any;

export function readYaml(path: string): Doc[] {
  return parseAllDocuments(readFileSync(path, 'utf8'), { merge: true })
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]!.message}`);
      return doc.toJS({ maxAliasCount: -1 }) as Doc;
    })
    .filter((doc) => doc !== null);
}

/** The base's objects, every one in `namespace` (an overlay's), as `kubectl apply -k` would create them. */
export function kubernetesBase(namespace: string): Doc[] {
  const dir = join(deployDir, 'kubernetes');
  const [kustomization] = readYaml(join(dir, 'kustomization.yaml'));
  return (kustomization.resources as string[]).flatMap((file) =>
    readYaml(join(dir, file)).map((doc) => ({ ...doc, metadata: { ...doc.metadata, namespace } })),
  );
}

/** Every pod template of the base's Deployments and Jobs, by workload name. */
export function podTemplates(objects: Doc[]): { workload: string; template: Doc }[] {
  return objects
    .filter((o) => o.kind === 'Deployment' || o.kind === 'Job')
    .map((o) => ({ workload: o.metadata.name as string, template: o.spec.template }));
}

export function readEnvFile(path: string): Record<string, string> {
  const entries = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const);
  return Object.fromEntries(entries);
}
