import type { AttestationOrigin } from './states.ts';

/**
 * The IPTC Digital Source Type vocabulary (NewsCodes, release of 2024-10): how a piece of media came to be. C2PA
 * actions, IPTC photo metadata and the EU's labelling of AI output all name it by these URIs.
 */
export const IPTC_DIGITAL_SOURCE_TYPE = 'http://cv.iptc.org/newscodes/digitalsourcetype/';

/** Terms that say a trained model (generative AI) made the media or a part of it: allowed only for `ai`. */
const AI_TERMS = ['trainedAlgorithmicMedia', 'compositeWithTrainedAlgorithmicMedia', 'compositeSynthetic'] as const;

/** Terms that say no trained model made it: allowed only for `human`. */
const HUMAN_TERMS = [
  'digitalCapture',
  'computationalCapture',
  'negativeFilm',
  'positiveFilm',
  'print',
  'humanEdits',
  'algorithmicallyEnhanced',
  'digitalCreation',
  'dataDrivenMedia',
  'algorithmicMedia',
  'softwareImage',
  'screenCapture',
  'virtualRecording',
  'composite',
  'compositeCapture',
] as const;

/** Retired by IPTC in 2024, with the term that replaced each. */
const RETIRED: Record<string, string> = { minorHumanEdits: 'humanEdits', digitalArt: 'digitalCreation' };

type DigitalSourceTerm = (typeof AI_TERMS)[number] | (typeof HUMAN_TERMS)[number];

/**
 * What a create that names none gets: AI output is `trainedAlgorithmicMedia` (what C2PA and the EU AI Act's
 * labelling expect of generated media); human work is `digitalCreation`, "media created by a human using digital
 * tools", which fits text and art alike where `digitalCapture` would claim a camera.
 */
export const DEFAULT_TERM: Record<AttestationOrigin, DigitalSourceTerm> = {
  ai: 'trainedAlgorithmicMedia',
  human: 'digitalCreation',
};

const TERMS_OF: Record<AttestationOrigin, ReadonlySet<string>> = { ai: new Set(AI_TERMS), human: new Set(HUMAN_TERMS) };

export const digitalSourceTypeUri = (term: string): string => IPTC_DIGITAL_SOURCE_TYPE + term;

/** A row's term, or its origin's default for rows stored before the field existed (null). */
export const termOf = (stored: string | null, type: AttestationOrigin): string => stored ?? DEFAULT_TERM[type];

/** The term of a URI given with `type`, or why it cannot be: one message, naming the terms that would do. */
export function checkDigitalSourceType(
  uri: string,
  type: AttestationOrigin,
): { term: DigitalSourceTerm } | { problem: string } {
  if (!uri.startsWith(IPTC_DIGITAL_SOURCE_TYPE))
    return { problem: `must be an IPTC digital source type URI: ${IPTC_DIGITAL_SOURCE_TYPE}<term>` };
  const term = uri.slice(IPTC_DIGITAL_SOURCE_TYPE.length);
  if (TERMS_OF[type].has(term)) return { term: term as DigitalSourceTerm };
  if (term in RETIRED) return { problem: `${term} is retired by IPTC: use ${RETIRED[term]}` };
  const other: AttestationOrigin = type === 'ai' ? 'human' : 'ai';
  if (TERMS_OF[other].has(term))
    return {
      problem: `${term} ${type === 'ai' ? 'says no trained model made the content' : 'says a trained model made the content'}, which contradicts type "${type}"; terms for ${type}: ${[...TERMS_OF[type]].join(', ')}`,
    };
  return {
    problem: `${term} is not an IPTC digital source type; terms for ${type}: ${[...TERMS_OF[type]].join(', ')}`,
  };
}
