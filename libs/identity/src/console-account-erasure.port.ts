import type { CommandContext } from '#warden/kernel';

/**
 * What a GDPR deletion does to the erased person's console account (CONSOLE_ACCOUNT_ERASURE): a
 * port identity declares and provides, and the erasure module calls within its one step
 * (docs/architecture.md, "Ports" and "Main flows"). Required by the erasure module.
 */
export interface ConsoleAccountErasure {
  /** Disables the account, ending its sessions; the same account again changes nothing. */
  disable(orgId: string, userId: string, context: CommandContext): Promise<void>;
}

export const CONSOLE_ACCOUNT_ERASURE = Symbol('ConsoleAccountErasure');
