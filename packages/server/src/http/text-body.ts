/**
 * A procedure's answer that is not JSON (a credential as `application/vc+jwt`): the REST layer writes the text with its
 * media type and headers; anything that serialises it instead (tRPC's own responses) gets the text as a JSON string.
 */
export class TextBody {
  readonly contentType: string;
  readonly text: string;
  readonly headers: Record<string, string>;

  constructor(contentType: string, text: string, headers: Record<string, string> = {}) {
    this.contentType = contentType;
    this.text = text;
    this.headers = headers;
  }

  toJSON(): string {
    return this.text;
  }
}
