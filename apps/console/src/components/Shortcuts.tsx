import { useEffect, useRef } from 'react';

export interface Shortcut {
  /** A single key ('v'), 'Escape', or 'Ctrl+Enter'. */
  readonly key: string;
  readonly label: string;
  run(): void;
}

/** Inputs that take free text; a checkbox or radio with focus still lets the shortcuts work. */
const TEXT_INPUTS = new Set(['text', 'search', 'email', 'number', 'password', 'url', 'tel', 'date', 'datetime-local', 'time']);
const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement &&
  (target.isContentEditable ||
    target.tagName === 'TEXTAREA' ||
    target.tagName === 'SELECT' ||
    (target instanceof HTMLInputElement && TEXT_INPUTS.has(target.type)));

/**
 * Keyboard shortcuts for the frequent moves. Single keys are ignored while the moderator types
 * in a field, so a reason can contain an "s"; Ctrl+Enter works everywhere.
 */
export function useShortcuts(list: readonly Shortcut[]): readonly Shortcut[] {
  const latest = useRef(list);
  latest.current = list;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      // A held key repeats: one press, one move (a decision is never sent twice this way).
      if (event.repeat || event.isComposing || event.altKey) return;
      const combo = event.ctrlKey || event.metaKey ? `Ctrl+${event.key}` : event.key;
      const hit = latest.current.find((s) => s.key === combo);
      if (!hit) return;
      // In a text field only Ctrl+Enter acts: Escape there must not throw away a half-written reason.
      if (!combo.startsWith('Ctrl+') && typing(event.target)) return;
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
