// deploy/kubernetes as a cluster would run it, without a cluster: its NetworkPolicies evaluated for who reaches whom,
// what each pod is given (no Secret for the verification app, no service account token), the overlay's digests.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deployDir, kubernetesBase, podTemplates, readEnvFile, readYaml, type Doc } from './manifests.ts';
import { reaches, type Endpoint, type NetworkPolicy } from './network-policy.ts';

const namespace = 'attestation-service';
const objects = kubernetesBase(namespace);
const policies = objects.filter((o) => o.kind === 'NetworkPolicy') as NetworkPolicy[];
const templates = podTemplates(objects);

function pod(name: string, ns: string, labels: Record<string, string>, ip: string, ports?: Record<string, number>) {
  const namespaceLabels = { 'kubernetes.io/metadata.name': ns };
  return { kind: 'pod', name, namespace: ns, namespaceLabels, labels, ip, ports } satisfies Endpoint;
}
/** The base's pod of this component, with the labels and named ports its template gives it. */
function ours(component: string, ip: string): Endpoint {
  const found = templates.find(({ template }) => template.metadata.labels['app.kubernetes.io/component'] === component);
  if (!found) throw new Error(`no pod template for ${component}`);
  const ports = Object.fromEntries(
    (found.template.spec.containers as Doc[]).flatMap((c) =>
      (c.ports ?? []).map((p: Doc) => [p.name, p.containerPort]),
    ),
  );
  return pod(component, namespace, found.template.metadata.labels, ip, ports);
}
const external = (name: string, ip: string): Endpoint => ({ kind: 'external', name, ip });

const api = ours('api', '10.244.1.10');
const worker = ours('worker', '10.244.1.11');
const verify = ours('verify', '10.244.1.12');
const migrate = ours('migrate', '10.244.1.13');
const ingress = pod(
  'the ingress controller',
  'ingress-nginx',
  { 'app.kubernetes.io/name': 'ingress-nginx' },
  '10.244.2.10',
);
const prometheus = pod('Prometheus', 'monitoring', { 'app.kubernetes.io/name': 'prometheus' }, '10.244.3.10');
const dns = pod('kube-dns', 'kube-system', { 'k8s-app': 'kube-dns' }, '10.244.0.10');
const otherApp = pod("another namespace's pod", 'default', { app: 'shop' }, '10.244.4.10');
const neighbour = pod('another pod of the namespace', namespace, { run: 'debug' }, '10.244.1.99');
const postgres = external('PostgreSQL', '10.0.5.10');
const redis = external('Redis', '10.0.5.11');
const rpc = external('an RPC provider', '203.0.113.10');
const receiver = external('a webhook receiver', '198.51.100.7');
const metadata = external('the cloud metadata service', '169.254.169.254');

describe('deploy/kubernetes NetworkPolicies', () => {
  const cases: [Endpoint, Endpoint, number, boolean][] = [
    [ingress, api, 8080, true],
    [ingress, verify, 8081, true],
    [ingress, api, 9464, false],
    [ingress, worker, 8082, false],
    [prometheus, api, 9464, true],
    [prometheus, worker, 9464, true],
    [prometheus, api, 8080, false],
    [otherApp, api, 8080, false],
    [otherApp, api, 9464, false],
    [otherApp, worker, 8082, false],
    [otherApp, verify, 8081, false],
    [neighbour, api, 8080, false],
    [neighbour, worker, 9464, false],
    [verify, api, 8080, true],
    [verify, api, 9464, false],
    [verify, worker, 8082, false],
    [verify, postgres, 5432, false],
    [verify, redis, 6379, true],
    [verify, rpc, 443, true],
    [verify, receiver, 8443, false],
    [api, postgres, 5432, true],
    [api, redis, 6379, true],
    [api, rpc, 443, true],
    [api, verify, 8081, false],
    [api, metadata, 80, false],
    [worker, postgres, 5432, true],
    [worker, redis, 6379, true],
    [worker, rpc, 443, true],
    [worker, receiver, 8443, true],
    [worker, external('a private address', '10.1.2.3'), 8443, false],
    [worker, metadata, 80, false],
    [worker, api, 8080, false],
    [migrate, postgres, 5432, true],
    [migrate, redis, 6379, false],
    [migrate, rpc, 443, false],
  ];
  it.each(
    cases.map(([from, to, port, allowed]) => ({ from, to, port, allowed, name: `${from.name} → ${to.name}:${port}` })),
  )('$name: $allowed', ({ from, to, port, allowed }) => {
    expect(reaches(policies, from, to, port)).toBe(allowed);
  });

  it('lets every pod of the namespace ask cluster DNS and nothing else on port 53', () => {
    for (const from of [api, worker, verify, migrate, neighbour]) {
      expect(reaches(policies, from, dns, 53, 'UDP')).toBe(true);
      expect(reaches(policies, from, external('a public resolver', '8.8.8.8'), 53, 'UDP')).toBe(false);
    }
  });
});

describe('deploy/kubernetes pods', () => {
  it('mount no service account token', () => {
    expect(templates.length).toBeGreaterThanOrEqual(4);
    for (const { workload, template } of templates)
      expect({ workload, automount: template.spec.automountServiceAccountToken }).toEqual({
        workload,
        automount: false,
      });
  });

  it('give the verification app no part of the service Secret', () => {
    const spec = templates.find(({ workload }) => workload === 'attestation-service-verify')!.template.spec;
    const secretsNamed = [
      ...(spec.containers as Doc[]).flatMap((c) => [
        ...(c.envFrom ?? []).map((e: Doc) => e.secretRef?.name),
        ...(c.env ?? []).map((e: Doc) => e.valueFrom?.secretKeyRef?.name),
      ]),
      ...(spec.volumes ?? []).flatMap((v: Doc) => [
        v.secret?.secretName,
        ...(v.projected?.sources ?? []).map((s: Doc) => s.secret?.name),
      ]),
    ].filter(Boolean);
    expect(secretsNamed).toEqual(['attestation-service-verify']);
    const verifySecret = readEnvFile(join(deployDir, 'kubernetes/verify-secret.example.env'));
    for (const key of ['DATABASE_URL', 'WORKER_DATABASE_URL', 'SERVICE_SECRET', 'RELAYER_PRIVATE_KEY', 'SMTP_URL'])
      expect(verifySecret).not.toHaveProperty(key);
    expect(Object.keys(verifySecret)).toEqual(expect.arrayContaining(['CHAIN_RPC_URL', 'ATTESTER_ADDRESS']));
  });

  it('are given their image by digest in the production overlay', () => {
    const [overlay] = readYaml(join(deployDir, 'overlays/production/kustomization.yaml'));
    expect(overlay.resources).toContain('../../kubernetes');
    expect(overlay.images.length).toBeGreaterThan(0);
    for (const image of overlay.images) {
      expect(image.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(image).not.toHaveProperty('newTag');
    }
  });
});
