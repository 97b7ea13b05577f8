/**
 * Whose data key seals a piece of personal data (DESIGN.md section 3). One form everywhere, so
 * that forgetting a user's key erases what they submitted, reported and appealed alike.
 */
export const userSubject = (user: { readonly typeId: string; readonly id: string }): string => `${user.typeId}:${user.id}`;

/** An item's data belongs to its creator; to the item itself when it is a user or has no creator. */
export const itemSubject = (item: { readonly typeId: string; readonly id: string }, creator: { readonly typeId: string; readonly id: string } | null): string =>
  userSubject(creator ?? item);
