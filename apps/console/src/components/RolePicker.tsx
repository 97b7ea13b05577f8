import { ROLES, roleLabel, type Role } from '../app/roles';

/** The roles as checkboxes; at least one is required (the server refuses none). */
export function RolePicker({ legend, chosen, onChange }: { legend: string; chosen: readonly Role[]; onChange(roles: Role[]): void }) {
  const toggle = (role: Role) => onChange(chosen.includes(role) ? chosen.filter((r) => r !== role) : [...chosen, role]);
  return (
    <fieldset className="roles-picker">
      <legend>{legend}</legend>
      {ROLES.map((role) => (
        <label key={role}>
          <input type="checkbox" checked={chosen.includes(role)} onChange={() => toggle(role)} /> {roleLabel(role)}
        </label>
      ))}
    </fieldset>
  );
}
