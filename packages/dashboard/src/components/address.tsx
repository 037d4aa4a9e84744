import { Fragment } from 'react';

// an address may wrap before its `@` and before each `/` or `?` of a URL's path, never inside a name
const SEAMS = /(?=@)|(?<=[^/:])(?=\/)|(?=\?)/;

/**
 * An e-mail address or URL that wraps only at its seams; a piece too long for its box is cut with an ellipsis, the
 * whole address in the title.
 */
export function Address({ value }: { value: string }) {
  const pieces = value.split(SEAMS);
  return (
    <span className="addr" title={value}>
      {pieces.map((piece, i) => (
        <Fragment key={i}>
          {i > 0 ? <wbr /> : null}
          <span className="addr-piece">{piece}</span>
        </Fragment>
      ))}
    </span>
  );
}
