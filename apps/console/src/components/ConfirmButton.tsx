import { useState } from 'react';

/**
 * A button for a step that cannot be taken back (revoke, rotate, disable): the first press asks,
 * in words saying what will happen, and only the second runs it.
 */
export function ConfirmButton({
  label,
  question,
  confirmLabel,
  onConfirm,
  busy,
  accessibleName,
}: {
  label: string;
  question: string;
  confirmLabel: string;
  onConfirm(): void;
  busy?: boolean;
  accessibleName?: string;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" onClick={() => setAsking(true)} disabled={busy} aria-label={accessibleName}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span>{question}</span>{' '}
      <button
        type="button"
        className="danger"
        autoFocus
        disabled={busy}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>{' '}
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
