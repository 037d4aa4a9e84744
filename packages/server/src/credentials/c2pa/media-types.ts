import { AppError } from '../../errors.ts';

/**
 * The media types c2pa-rs writes a manifest into (its asset handlers: JPEG, PNG, RIFF, BMFF, GIF, TIFF, SVG, MP3,
 * FLAC), as the `format` its Builder takes. Aliases of one container are listed as c2pa-rs lists them.
 */
const EMBEDDABLE_TYPES = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'image/tiff',
  'image/dng',
  'image/x-adobe-dng',
  'image/avif',
  'image/heic',
  'image/heif',
  'image/svg+xml',
  'video/mp4',
  'video/quicktime',
  'video/x-m4v',
  'application/mp4',
  'audio/mp4',
  'audio/wav',
  'audio/wave',
  'audio/x-wav',
  'audio/vnd.wave',
  'video/avi',
  'video/msvideo',
  'video/x-msvideo',
  'audio/mpeg',
  'audio/mp3',
  'audio/flac',
] as const;

/** The sidecar's media type: a C2PA manifest store on its own (`.c2pa`). */
export const SIDECAR_TYPE = 'application/c2pa';

/**
 * Types with no place for a manifest (text, and bytes of no known container): only a sidecar, whose hard binding is
 * the SHA-256 of the whole asset. A PDF is not here: c2pa-rs parses one and cannot write it.
 */
const SIDECAR_ONLY = /^(text\/[a-z0-9.+-]+|application\/(json|xml|octet-stream|[a-z0-9.-]+\+(json|xml)))$/;

const EMBEDDABLE = new Set<string>(EMBEDDABLE_TYPES);

/** `Image/JPEG; charset=x` → `image/jpeg`: the parameters name no container. */
function bareMediaType(header: string | undefined): string | undefined {
  const bare = header?.split(';')[0]!.trim().toLowerCase();
  return bare ? bare : undefined;
}

/**
 * How the asset goes back: embedded, or as the sidecar store when Accept asks for it (any type c2pa-rs can hash:
 * every embeddable one, and text). 415 with the supported list for anything else.
 */
export function outputFor(contentType: string | undefined, sidecar: boolean): { format: string; embed: boolean } {
  const format = bareMediaType(contentType);
  if (format && EMBEDDABLE.has(format)) return { format, embed: !sidecar };
  if (format && sidecar && SIDECAR_ONLY.test(format)) return { format, embed: false };
  const wanted = sidecar ? 'a sidecar' : 'an embedded manifest';
  throw new AppError(
    'UNSUPPORTED_MEDIA_TYPE',
    format && SIDECAR_ONLY.test(format)
      ? `${format} has no place for an embedded manifest: ask for the sidecar with Accept: ${SIDECAR_TYPE}.`
      : `Content Credentials cannot be made for ${format ?? 'a body without Content-Type'} as ${wanted}.`,
    {
      contentType: contentType ?? null,
      supported: EMBEDDABLE_TYPES,
      sidecarOnly:
        'text/*, application/json, application/xml, application/*+json, application/*+xml, application/octet-stream',
    },
  );
}

/** Whether Accept asks for the sidecar store rather than the asset (the asset is the default). */
export function wantsSidecar(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept
    .split(',')
    .map((part) => part.split(';'))
    .some(([type, ...params]) => {
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return type!.trim().toLowerCase() === SIDECAR_TYPE && (q === undefined || Number(q.slice(2)) > 0);
    });
}
