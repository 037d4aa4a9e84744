import { useState, type DragEvent } from 'react';
import { sha256File } from '../lib/hash.ts';
import { logFailure, unawaited } from '../lib/unawaited.ts';

/** A file chosen or dropped here is hashed in the browser (never uploaded); the hash goes to `onHash`. */
export function FileHashDrop({ onHash }: { onHash: (hash: string) => void }) {
  const [over, setOver] = useState(false);
  const [status, setStatus] = useState('');

  async function take(file: File | undefined) {
    if (!file) return;
    setStatus(`Hashing ${file.name}…`);
    try {
      const hash = await sha256File(file);
      setStatus(`${file.name}: ${hash}`);
      onHash(hash);
    } catch (error) {
      setStatus(error instanceof Error ? error.message : 'The file could not be read.');
    }
  }

  function drop(event: DragEvent<HTMLLabelElement>) {
    event.preventDefault();
    setOver(false);
    take(event.dataTransfer.files[0]).catch(logFailure);
  }

  return (
    <div>
      <label
        className={over ? 'drop over' : 'drop'}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
      >
        <span>Drop a file here or choose one: it is hashed on this device, nothing is uploaded.</span>
        <input type="file" onChange={unawaited((e) => take(e.target.files?.[0]))} />
      </label>
      <p className="muted small break" aria-live="polite">
        {status}
      </p>
    </div>
  );
}
