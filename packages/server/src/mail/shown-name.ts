/**
 * An account name as a mail body shows it: quoted, as data, and inert. A name is anyone's words (`Claim your refund
 * at evil.example`), so a dot between letters or digits is written `[.]`, `@` `[@]` and `://` `[:]//`, the way
 * security notices defang a host: no mail client then turns it into a link, and a reader still sees what was named.
 * The HTML part escapes it as every value (compose.ts).
 */
export function shownName(name: string): string {
  const inert = name
    .replace(/\s+/g, ' ')
    .replace(/(?<=[\p{L}\p{N}])\.(?=[\p{L}\p{N}])/gu, '[.]')
    .replace(/@/g, '[@]')
    .replace(/:\/\//g, '[:]//');
  return `“${inert}”`;
}
