import type { Attestation } from '@attestation-service/client';
import type { StatusListSignal, Verdict } from '../verdict/types.ts';
import { html, type SafeHtml } from './escape.ts';
import { formatTime, row } from './parts.ts';

type Said = { state: string; text: string };

/** EAS's word: the chain's revocation time (the record's word is shown beside it, never instead of it). */
function easSays(r: Attestation, v: Verdict): Said {
  if (v.state === 'unavailable') return { state: 'unchecked', text: 'could not check: the chain did not answer' };
  if (v.chainRevokedAt) return { state: 'revoked', text: `revoked at ${formatTime(v.chainRevokedAt)}` };
  if (r.revoked)
    return { state: 'not-revoked', text: `not revoked (our record says revoked at ${formatTime(r.revokedAt)})` };
  return { state: 'not-revoked', text: 'not revoked' };
}

function listSays(s: StatusListSignal | null): Said {
  if (!s) return { state: 'unchecked', text: 'not checked just now' };
  switch (s.state) {
    case 'revoked':
    case 'not-revoked':
      return {
        state: s.state,
        text: `${s.state === 'revoked' ? 'revoked' : 'not revoked'} (list ${s.list}, entry ${s.index})`,
      };
    case 'unchecked':
      return { state: 'unchecked', text: `could not check: ${s.reason}` };
    case 'unsound':
      return { state: 'unsound', text: `does not hold: ${s.reason}` };
  }
}

const CHECKED = new Set(['revoked', 'not-revoked']);

/**
 * Revocation by each signal that can say it, side by side: EAS on the chain, and the service's W3C status list (the
 * bit of the attestation's credential). Where both answered and differ, the page says they disagree.
 */
export function revocationRow(r: Attestation, v: Verdict): SafeHtml {
  const eas = easSays(r, v);
  const list = listSays(v.statusList);
  const disagree = CHECKED.has(eas.state) && CHECKED.has(list.state) && eas.state !== list.state;
  return row(
    'Revoked',
    html`<ul class="signals">
        <li data-revocation-by="eas" data-state="${eas.state}"><strong>EAS, on the chain</strong>: ${eas.text}</li>
        <li data-revocation-by="status-list" data-state="${list.state}">
          <strong>Status list, the service's credential</strong>: ${list.text}
        </li>
      </ul>
      ${
        disagree
          ? html`<p class="error" data-revocation-agreement="disagree">
              The two disagree: do not rely on this attestation until they say the same.
            </p>`
          : ''
      }`,
  );
}
