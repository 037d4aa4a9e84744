/**
 * A procedure's answer already written as JSON text (a read whose bulk is stored JSON, spliced in as it is stored):
 * the REST layer sends the text as it is; anything else that serialises it (tRPC's own responses, a test) gets its
 * value through `toJSON`. See docs/decisions.md, "Performance".
 */
export class JsonText<T> {
  readonly #text: () => string | Buffer;
  readonly #value: () => T;

  /** Both are built only when asked for: a `/trpc` read never builds the text, a REST read never the value. */
  constructor(text: () => string | Buffer, value: () => T) {
    this.#text = text;
    this.#value = value;
  }

  /** The JSON text, or its UTF-8 bytes where they are kept as such. */
  get text(): string | Buffer {
    return this.#text();
  }

  toJSON(): T {
    return this.#value();
  }
}

/**
 * The answer as its procedure's declared output: the router's types (OpenAPI, the SDK) stay those of the value; only
 * the HTTP layer and JSON.stringify ever look inside.
 */
export function asAnswer<T>(answer: JsonText<T>): T {
  return answer as unknown as T;
}
