import * as z from 'zod';
import { type DashboardUser, ROLES } from '../catalog.model.js';
import type { CheckContext } from './cross-references.checker.js';
import { entriesOf } from './raw-document.reader.js';

/** One entry of `users:`, a dashboard user. */
export const userSchema: z.ZodType<DashboardUser> = z.strictObject({
  email: z
    .string()
    .max(254)
    .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address'),
  roles: z.array(z.enum(ROLES)).default([]),
});

/** Email addresses are compared as identity compares them: trimmed, in Unicode's NFC, without regard to case. */
export function checkUsers(doc: Record<string, unknown>, { problems }: CheckContext): void {
  const seen = new Set<string>();
  for (const { index, raw } of entriesOf(doc, 'users')) {
    if (typeof raw.email !== 'string') continue;
    const email = raw.email.trim().normalize('NFC').toLowerCase();
    if (seen.has(email)) problems.add(['users', index, 'email'], `duplicate user "${raw.email}"`);
    seen.add(email);
  }
}
