import { useEffect, useRef } from 'react';

export interface Shortcut {
  /** A single key ('v'), 'Escape', or 'Ctrl+Enter'. */
  readonly key: string;
  readonly label: string;
  run(): void;
}

/** Inputs a letter key does not type into: after a shortcut focuses a decision radio, the next shortcut must still work. */
const NOT_TYPED = new Set(['radio', 'checkbox', 'button', 'submit', 'reset']);

const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement &&
  (target.isContentEditable ||
    ['TEXTAREA', 'SELECT'].includes(target.tagName) ||
    (target instanceof HTMLInputElement && !NOT_TYPED.has(target.type)));

/**
 * Keyboard shortcuts for the frequent moves. Single keys are ignored while the moderator types
 * in a field, so a reason can contain an "s"; Ctrl+Enter works everywhere.
 */
export function useShortcuts(list: readonly Shortcut[]): readonly Shortcut[] {
  const latest = useRef(list);
  latest.current = list;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const combo = event.ctrlKey || event.metaKey ? `Ctrl+${event.key}` : event.key;
      const hit = latest.current.find((s) => s.key === combo);
      if (!hit) return;
      if (!combo.startsWith('Ctrl+') && combo !== 'Escape' && typing(event.target)) return;
      if (event.altKey) return;
      event.preventDefault();
      hit.run();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return list;
}

/** The shortcuts of this screen, always listed. */
export function Shortcuts({ list }: { list: readonly Shortcut[] }) {
  return (
    <section className="shortcuts card" aria-labelledby="shortcuts-heading">
      <h3 id="shortcuts-heading">Keyboard shortcuts</h3>
      <dl>
        {list.map((s) => (
          <div key={s.key}>
            <dt>
              <kbd>{s.key}</kbd>
            </dt>
            <dd>{s.label}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
