import type { ActionDefinition, ItemTypeDefinition, PolicyDefinition, RuleDefinition, TextBankDefinition } from './catalog.model.js';
import type { HashBankEntity } from './catalog.events.js';
import { type ConfigProblem, parseOrgConfig } from './org-config.parser.js';
import { parseSyntax } from './org-config/document-syntax.parser.js';

export interface StoredCatalog {
  readonly orgId: string;
  readonly itemTypes: readonly ItemTypeDefinition[];
  readonly policies: readonly PolicyDefinition[];
  readonly actions: readonly ActionDefinition[];
  readonly textBanks: readonly TextBankDefinition[];
  readonly hashBanks: readonly HashBankEntity[];
}

/**
 * A rule for a backtest, from a file holding one rule (or `rule: {...}`), validated exactly as
 * `apply` would validate it against the organization's stored catalog.
 */
export function parseCandidateRule(
  text: string,
  catalog: StoredCatalog,
  env: Readonly<Record<string, string | undefined>>,
): { ok: true; rule: RuleDefinition } | { ok: false; problems: ConfigProblem[] } {
  // Read as apply reads a configuration file (the same refusals: unknown tags, depth).
  const syntax = parseSyntax(text, 'yaml');
  if (!syntax.ok) return { ok: false, problems: [{ path: '', message: syntax.message }] };
  const raw = syntax.value;
  const rule = typeof raw === 'object' && raw !== null && 'rule' in raw ? (raw as { rule: unknown }).rule : raw;
  const config = {
    org: { id: catalog.orgId, name: catalog.orgId },
    itemTypes: catalog.itemTypes.map((t) => ({ ...t, version: t.version ?? undefined })),
    policies: catalog.policies,
    // Only the ids matter here: a backtest publishes nothing.
    actions: catalog.actions.map((a) => ({ id: a.id, name: a.name, kind: 'ENQUEUE_TO_MRT' })),
    textBanks: catalog.textBanks,
    hashBanks: catalog.hashBanks.map((b) => ({
      id: b.id,
      name: b.name,
      hashType: b.hashType,
      ...(b.maxDistance !== null ? { maxDistance: b.maxDistance } : {}),
    })),
    rules: [rule],
  };
  const result = parseOrgConfig(JSON.stringify(config), { format: 'json', env, readHashesFile: () => '' });
  if (!result.ok) return { ok: false, problems: result.problems.map(asCandidateProblem) };
  return { ok: true, rule: result.config.rules[0]! };
}

/**
 * A problem of the candidate, at `rule.…`; any other is the stored catalog's (rebuilt above), which
 * `apply` accepted before a check it makes today existed (an id with a hidden character): said as
 * such, since the rule file holds no such path and only a corrected configuration fixes it.
 */
function asCandidateProblem(problem: ConfigProblem): ConfigProblem {
  if (/^rules\[0\]/.test(problem.path)) return { ...problem, path: problem.path.replace(/^rules\[0\]\.?/, 'rule.') };
  return {
    ...problem,
    path: `(stored configuration) ${problem.path}`,
    message: `${problem.message}; the organization's stored configuration no longer passes apply's checks: apply a corrected configuration first`,
  };
}
