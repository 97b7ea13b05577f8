import type { CommandContext } from '#warden/kernel';

export interface SubmitContentInput {
  readonly contentId: string;
  readonly contentType: string;
  readonly content: { [field: string]: unknown };
  readonly userId?: string;
  readonly sync?: boolean;
}

export interface ContentEvaluation {
  readonly contentId: string;
  readonly rules: Array<{ id: string; name: string; status: string; result: string }>;
  readonly actionsTriggered: Array<{ id: string; name: string }>;
}

/** `accepted`: recorded, evaluated later by the worker; `evaluated`: evaluated before answering. */
export type SubmitContentResult = { readonly kind: 'accepted' } | { readonly kind: 'evaluated'; readonly evaluation: ContentEvaluation };

/** The legacy single-item submission (docs/rules.md, "Submitting items"). */
export class SubmitContentCommand {
  constructor(
    readonly input: SubmitContentInput,
    readonly context: CommandContext,
  ) {}
}
