/** A page's title with its Refresh button (which reloads what the page shows). */
export function PageHead({ title, loaded }: { title: string; loaded: { reload(): void; loading: boolean } }) {
  return (
    <div className="page-head">
      <h1>{title}</h1>
      <button type="button" onClick={loaded.reload} disabled={loaded.loading}>
        Refresh
      </button>
    </div>
  );
}

/** What the last action did, announced politely. */
export function Notice({ text }: { text: string | null }) {
  if (!text) return null;
  return (
    <p className="notice" role="status">
      {text}
    </p>
  );
}
