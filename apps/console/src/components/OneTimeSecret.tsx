import { useId, useState } from 'react';

/**
 * A secret the server shows once (an API key, an invitation link): it cannot be fetched again,
 * so it stays on screen with a copy button until the person says it is saved.
 */
export function OneTimeSecret({
  title,
  label,
  value,
  warning,
  onDismiss,
}: {
  title: string;
  label: string;
  value: string;
  warning: string;
  onDismiss(): void;
}) {
  const headingId = useId();
  const [copied, setCopied] = useState<string | null>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard.');
    } catch {
      // The browser may refuse the clipboard (no permission, not a secure page): select instead.
      setCopied('The browser refused the clipboard: select the text and copy it by hand.');
    }
  }
  return (
    <section className="secret card" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      <p className="warning" role="alert">
        {warning}
      </p>
      <label>
        {label}
        <input readOnly value={value} onFocus={(e) => e.target.select()} spellCheck={false} className="mono" />
      </label>
      <button type="button" onClick={() => void copy()}>
        Copy
      </button>{' '}
      <button type="button" className="primary" onClick={onDismiss}>
        I have saved it
      </button>
      <span className="muted" aria-live="polite">
        {' '}
        {copied}
      </span>
    </section>
  );
}
