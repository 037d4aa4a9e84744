import { useCallback, useState } from 'react';

/**
 * A page's confirmation of an action on one of its items: the item asked about (null: none), and the last outcome
 * the page announces (`done`, also set by the page's other actions).
 */
export function useConfirmTarget<T>() {
  const [target, ask] = useState<T | null>(null);
  const [done, setDone] = useState('');
  const close = useCallback((message?: string) => {
    ask(null);
    if (message) setDone(message);
  }, []);
  return { target, ask, done, setDone, close };
}
