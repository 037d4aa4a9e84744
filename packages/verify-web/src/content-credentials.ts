import { sourceTypeLabels } from './source-type.ts';

/**
 * The label of the assertion in which the service's C2PA manifests name their attestation (reverse-DNS, as C2PA asks
 * of custom assertions); the API writes it, the page's C2PA reading looks for it.
 */
const ATTESTATION_ASSERTION = 'org.attestation-service.attestation';

/**
 * What the page's C2PA reading needs of this package's vocabulary, as a static script (the CSP allows no inline
 * script): the attestation assertion's label and the digital source types' labels, declared once in TypeScript.
 */
export function vocabularyScript(): string {
  const vocabulary = { attestationAssertion: ATTESTATION_ASSERTION, sourceTypes: sourceTypeLabels() };
  return `'use strict';\nwindow.attestationVocabulary = Object.freeze(${JSON.stringify(vocabulary, null, 2)});\n`;
}
