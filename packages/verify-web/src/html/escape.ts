/** Markup that is already safe: only `html` makes it, so every other value is escaped on the way in. */
export interface SafeHtml {
  readonly __html: string;
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

function isSafe(value: unknown): value is SafeHtml {
  return typeof value === 'object' && value !== null && '__html' in value;
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  if (isSafe(value)) return value.__html;
  return escapeHtml(String(value));
}

/** A template whose interpolations are escaped unless they are SafeHtml (arrays are joined, null and false vanish). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return { __html: out };
}
