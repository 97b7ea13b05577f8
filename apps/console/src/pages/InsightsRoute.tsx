import { lazy, Suspense } from 'react';

// Loaded on demand: the chart library stays out of what the review screen downloads (docs/console.md, "Insights").
const Insights = lazy(() => import('./Insights'));

/** The Insights page, fetched the first time it is opened. */
export function InsightsRoute() {
  return (
    <Suspense fallback={<p role="status">Loading Insights…</p>}>
      <Insights />
    </Suspense>
  );
}
