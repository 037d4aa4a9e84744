/** A mail's parts: a subject, a plain-text part and an HTML part saying the same. */
export interface Composed {
  subject: string;
  text: string;
  html: string;
}

/** The bounds every mail keeps (docs/decisions.md, "Mail"): a subject line, and each part's size. */
const MAIL_SIZE = { subjectMax: 200, partMax: 64 * 1024 };

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const cut = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * A mail of paragraphs and at most one action link, as plain text and as simple HTML (every value escaped: an account
 * name or a receiver's error text is someone's input). Parts past MAIL_SIZE are cut, never sent whole.
 */
export function composeMail(
  subject: string,
  paragraphs: string[],
  action?: { label: string; url: string },
  list: string[] = [],
): Composed {
  const footer = 'Attestation Service';
  const textParts = [
    ...paragraphs,
    ...(list.length > 0 ? [list.map((item) => `- ${item}`).join('\n')] : []),
    ...(action ? [`${action.label}: ${action.url}`] : []),
    `-- \n${footer}`,
  ];
  const p = (t: string) => `<p style="margin:0 0 16px">${escapeHtml(t)}</p>`;
  const htmlParts = [
    ...paragraphs.map(p),
    ...(list.length > 0 ? [`<ul>${list.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>`] : []),
    ...(action
      ? [
          `<p style="margin:0 0 16px"><a href="${escapeHtml(action.url)}" style="background:#1f4fd1;color:#fff;` +
            `padding:10px 16px;border-radius:6px;text-decoration:none">${escapeHtml(action.label)}</a></p>`,
          p(`Or open this address: ${action.url}`),
        ]
      : []),
    `<p style="margin:24px 0 0;color:#666;font-size:13px">${footer}</p>`,
  ];
  const html =
    `<!doctype html><html><body style="font-family:system-ui,sans-serif;font-size:15px;line-height:1.5;` +
    `color:#1b1b1b;max-width:560px;margin:0 auto;padding:24px">${htmlParts.join('')}</body></html>`;
  return {
    subject: cut(subject.replace(/[\r\n]+/g, ' '), MAIL_SIZE.subjectMax),
    text: cut(textParts.join('\n\n'), MAIL_SIZE.partMax),
    html: cut(html, MAIL_SIZE.partMax),
  };
}
