import type { ReactNode } from 'react';

/** A page's title with its Refresh button (which reloads what the page shows). */
export function PageHead({ title, loaded }: { title: ReactNode; loaded: { reload(): void; loading: boolean } }) {
  return (
    <div className="page-head">
      <h1>{title}</h1>
      <button type="button" onClick={loaded.reload} disabled={loaded.loading}>
        Refresh
      </button>
    </div>
  );
}

/** The title of a page about one typed thing (an item, a user): what it is, then its type and id. */
export function TypedTitle({ noun, typeId, id }: { noun: string; typeId: string; id: string }) {
  return (
    <>
      {noun}{' '}
      <span className="muted">
        {typeId} {id}
      </span>
    </>
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
