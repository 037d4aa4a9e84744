// NetworkPolicy as Kubernetes evaluates it (networking.k8s.io/v1), for the deploy tests to ask which pod reaches
// which: a pod selected by any policy of a type is isolated for it, and then only what some policy allows passes;
// traffic passes when the sender's egress and the receiver's ingress both allow it.
import { BlockList, isIPv6 } from 'node:net';

export interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}
interface Peer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface PortRule {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}
interface Rule {
  from?: Peer[];
  to?: Peer[];
  ports?: PortRule[];
}
export interface NetworkPolicy {
  metadata: { name: string; namespace: string };
  spec: { podSelector: Selector; policyTypes?: ('Ingress' | 'Egress')[]; ingress?: Rule[]; egress?: Rule[] };
}

/** A pod (its namespace's labels, its own, its address and named container ports) or an address outside. */
export type Endpoint =
  | {
      kind: 'pod';
      name: string;
      namespace: string;
      namespaceLabels: Record<string, string>;
      labels: Record<string, string>;
      ip: string;
      ports?: Record<string, number>;
    }
  | { kind: 'external'; name: string; ip: string };

export function matches(selector: Selector, labels: Record<string, string>): boolean {
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  return (
    byLabel &&
    (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
      if (operator === 'Exists') return key in labels;
      if (operator === 'DoesNotExist') return !(key in labels);
      const isIn = key in labels && values.includes(labels[key]!);
      return operator === 'In' ? isIn : !isIn;
    })
  );
}

function inBlock(ip: string, block: { cidr: string; except?: string[] }): boolean {
  const family = isIPv6(ip) ? 'ipv6' : 'ipv4';
  const contains = (cidr: string) => {
    const [network, prefix] = cidr.split('/');
    if (isIPv6(network!) !== (family === 'ipv6')) return false;
    const list = new BlockList();
    list.addSubnet(network!, Number(prefix), family);
    return list.check(ip, family);
  };
  return contains(block.cidr) && !(block.except ?? []).some(contains);
}

/** Whether `peer`, written in a policy of `policyNamespace`, names `other`. */
function peerMatches(peer: Peer, policyNamespace: string, other: Endpoint): boolean {
  if (peer.ipBlock) return inBlock(other.ip, peer.ipBlock);
  if (other.kind !== 'pod') return false;
  const inNamespace = peer.namespaceSelector
    ? matches(peer.namespaceSelector, other.namespaceLabels)
    : other.namespace === policyNamespace;
  return inNamespace && (!peer.podSelector || matches(peer.podSelector, other.labels));
}

/** A named port is the destination container's; an address outside has no names. */
function portMatches(rule: PortRule, port: number, protocol: string, destination: Endpoint): boolean {
  if ((rule.protocol ?? 'TCP') !== protocol) return false;
  if (rule.port === undefined) return true;
  const number =
    typeof rule.port === 'number' ? rule.port : destination.kind === 'pod' ? destination.ports?.[rule.port] : undefined;
  if (number === undefined) return false;
  return rule.endPort === undefined ? port === number : port >= number && port <= rule.endPort;
}

function typesOf(policy: NetworkPolicy): ('Ingress' | 'Egress')[] {
  return policy.spec.policyTypes ?? (policy.spec.egress ? ['Ingress', 'Egress'] : ['Ingress']);
}

/** Whether `pod`'s policies let traffic go out to (Egress) or come in from (Ingress) `other` on port/protocol. */
function sideAllows(
  policies: NetworkPolicy[],
  direction: 'Ingress' | 'Egress',
  pod: Endpoint,
  other: Endpoint,
  destination: Endpoint,
  port: number,
  protocol: string,
): boolean {
  if (pod.kind !== 'pod') return true;
  const selecting = policies.filter(
    (p) =>
      p.metadata.namespace === pod.namespace &&
      typesOf(p).includes(direction) &&
      matches(p.spec.podSelector, pod.labels),
  );
  if (selecting.length === 0) return true;
  return selecting.some((policy) =>
    (direction === 'Ingress' ? policy.spec.ingress : policy.spec.egress)?.some((rule) => {
      const peers = direction === 'Ingress' ? rule.from : rule.to;
      const peerOk = !peers?.length || peers.some((peer) => peerMatches(peer, policy.metadata.namespace, other));
      const portOk = !rule.ports?.length || rule.ports.some((r) => portMatches(r, port, protocol, destination));
      return peerOk && portOk;
    }),
  );
}

/** Whether a connection from `source` to `destination` on `port` (TCP unless said) gets through. */
export function reaches(
  policies: NetworkPolicy[],
  source: Endpoint,
  destination: Endpoint,
  port: number,
  protocol = 'TCP',
): boolean {
  return (
    sideAllows(policies, 'Egress', source, destination, destination, port, protocol) &&
    sideAllows(policies, 'Ingress', destination, source, destination, port, protocol)
  );
}
