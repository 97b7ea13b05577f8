/** Previous and next for a list the server pages, with where the reader is. */
export function Pager({ label, status, onPrevious, onNext }: { label: string; status: string; onPrevious: (() => void) | null; onNext: (() => void) | null }) {
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" onClick={onPrevious ?? undefined} disabled={!onPrevious}>
        Previous
      </button>
      <span aria-live="polite">{status}</span>
      <button type="button" onClick={onNext ?? undefined} disabled={!onNext}>
        Next
      </button>
    </nav>
  );
}
