/** The IPTC Digital Source Type vocabulary's namespace: a record names `<namespace><term>`, as C2PA actions do. */
const IPTC_DIGITAL_SOURCE_TYPE = 'http://cv.iptc.org/newscodes/digitalsourcetype/';

/**
 * The label of each IPTC term (NewsCodes, release of 2024-10, and the two it retired), and a short qualifier for the
 * badge, read after the origin: "AI-generated (trained model)", "Human-made (digital capture)".
 */
const TERMS: Record<string, { label: string; short: string }> = {
  trainedAlgorithmicMedia: { label: 'Trained algorithmic media (generative AI)', short: 'trained model' },
  compositeWithTrainedAlgorithmicMedia: {
    label: 'Composite with trained algorithmic media (partly generative AI)',
    short: 'composite with AI',
  },
  compositeSynthetic: { label: 'Composite including synthetic elements', short: 'with synthetic parts' },
  algorithmicMedia: { label: 'Algorithmic media (no trained model)', short: 'algorithmic' },
  digitalCapture: { label: 'Original digital capture sampled from real life', short: 'digital capture' },
  computationalCapture: { label: 'Computational capture sampled from real life', short: 'computational capture' },
  negativeFilm: { label: 'Digitised from a negative on film', short: 'from negative film' },
  positiveFilm: { label: 'Digitised from a positive on film', short: 'from positive film' },
  print: { label: 'Digitised from a print on non-transparent medium', short: 'from a print' },
  humanEdits: { label: 'Human-edited media', short: 'human edits' },
  algorithmicallyEnhanced: { label: 'Algorithmically enhanced media', short: 'algorithmically enhanced' },
  digitalCreation: { label: 'Digital creation (made by a person with digital tools)', short: 'digital creation' },
  dataDrivenMedia: { label: 'Data-driven media', short: 'data-driven' },
  softwareImage: { label: 'Software image', short: 'software image' },
  screenCapture: { label: 'Screen capture', short: 'screen capture' },
  virtualRecording: { label: 'Virtual recording', short: 'virtual recording' },
  composite: { label: 'Composite of elements', short: 'composite' },
  compositeCapture: { label: 'Composite of captured elements', short: 'composite capture' },
  minorHumanEdits: { label: 'Original media with minor human edits (a retired IPTC term)', short: 'minor edits' },
  digitalArt: { label: 'Digital art (a retired IPTC term)', short: 'digital art' },
};

interface SourceType {
  uri: string;
  /** In words: the IPTC term's label, or, for a term outside the vocabulary, what it is. */
  label: string;
  short: string;
  known: boolean;
}

/** A digital source type URI in words (an unknown one is named as such, never guessed). */
function describeSourceType(uri: string): SourceType {
  const term = uri.startsWith(IPTC_DIGITAL_SOURCE_TYPE) ? uri.slice(IPTC_DIGITAL_SOURCE_TYPE.length) : undefined;
  const entry = term !== undefined && Object.hasOwn(TERMS, term) ? TERMS[term] : undefined;
  if (entry) return { uri, ...entry, known: true };
  const label = term ? `"${term}", not an IPTC digital source type` : 'Not an IPTC digital source type';
  return { uri, label, short: 'unknown source type', known: false };
}

/** The source type a record names, when it names one (an API from before the field sends none). */
export function sourceTypeOf(record: object): SourceType | null {
  const uri = (record as { digitalSourceType?: unknown }).digitalSourceType;
  return typeof uri === 'string' && uri !== '' ? describeSourceType(uri) : null;
}

/** Every known URI with its label, for the browser's reading of C2PA actions. */
export function sourceTypeLabels(): Record<string, string> {
  return Object.fromEntries(Object.entries(TERMS).map(([term, { label }]) => [IPTC_DIGITAL_SOURCE_TYPE + term, label]));
}
