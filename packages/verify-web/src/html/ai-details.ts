import type { Attestation } from '@attestation-service/client';
import { html, type SafeHtml } from './escape.ts';
import { row } from './parts.ts';

/**
 * The model behind an AI claim, as the record names it, and what signs it: off-chain the AI-details attestation the
 * verdict checks ("AI details"); on chain the service's Verifiable Credential, since the EAS data holds no model.
 */
export function aiDetailsRow(r: Attestation): SafeHtml | '' {
  if (!r.ai) return '';
  const signedBy =
    r.mode === 'offchain'
      ? 'signed with the claim as an AI-details attestation that names it (checked below)'
      : "signed in the service's Verifiable Credential, not on chain";
  const prompt = r.ai.promptHash ? html`<br />prompt SHA-256 <code class="small">${r.ai.promptHash}</code>` : '';
  return row(
    'Model',
    html`<code data-ai-model>${r.ai.model}</code>${prompt}<br /><span class="small">${signedBy}</span>`,
  );
}
