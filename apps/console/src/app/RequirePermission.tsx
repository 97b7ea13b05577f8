import type { ReactNode } from 'react';
import { type Permission, useSession } from './session';

/**
 * A page behind a permission. The navigation already hides what a user may not open; this is
 * for the URL typed or bookmarked by hand, so it says why instead of showing a broken page.
 */
export function RequirePermission({ permission, children }: { permission: Permission; children: ReactNode }) {
  const session = useSession();
  if (session.can(permission)) return <>{children}</>;
  return (
    <section className="card">
      <h1>No access</h1>
      <p role="alert">You do not have access to this page.</p>
      <p className="muted">Your roles do not include it; an administrator can change them.</p>
    </section>
  );
}
