/** "1 entry", "2 entries": a count with its noun, for the CLI's sentences. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
