import { useMemo, useState } from 'react';

export interface PolicyNode {
  readonly id: string;
  readonly name: string;
  readonly parentId: string | null;
}

/** The policy tree as nested checkboxes, with a filter for long trees. */
export function PolicyPicker({
  policies,
  chosen,
  onChange,
  required,
}: {
  policies: readonly PolicyNode[];
  chosen: readonly string[];
  onChange(ids: string[]): void;
  required: boolean;
}) {
  const [filter, setFilter] = useState('');
  const children = useMemo(() => {
    const map = new Map<string | null, PolicyNode[]>();
    const known = new Set(policies.map((p) => p.id));
    for (const p of policies) {
      const parent = p.parentId !== null && known.has(p.parentId) ? p.parentId : null;
      map.set(parent, [...(map.get(parent) ?? []), p]);
    }
    return map;
  }, [policies]);
  const needle = filter.trim().toLowerCase();
  const matches = (p: PolicyNode): boolean => !needle || p.name.toLowerCase().includes(needle) || (children.get(p.id) ?? []).some(matches);
  const toggle = (id: string) => onChange(chosen.includes(id) ? chosen.filter((c) => c !== id) : [...chosen, id]);

  const branch = (parent: string | null, depth: number) => {
    const nodes = (children.get(parent) ?? []).filter(matches);
    if (nodes.length === 0) return null;
    return (
      <ul className={depth === 0 ? 'policy-tree' : undefined}>
        {nodes.map((p) => (
          <li key={p.id}>
            <label>
              <input type="checkbox" checked={chosen.includes(p.id)} onChange={() => toggle(p.id)} /> {p.name}
            </label>
            {branch(p.id, depth + 1)}
          </li>
        ))}
      </ul>
    );
  };

  return (
    <fieldset className="policies">
      <legend>Policies{required ? ' (required)' : ''}</legend>
      {policies.length > 8 && (
        <label>
          Filter policies
          <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />
        </label>
      )}
      {policies.length === 0 ? <p className="muted">The organization has no policies.</p> : branch(null, 0)}
    </fieldset>
  );
}
