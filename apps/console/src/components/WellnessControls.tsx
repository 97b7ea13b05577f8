import { BLUR_LABELS, type Wellness } from '../app/wellness';

/** This moderator's own blur and greyscale, remembered in this browser; reset to the organization's. */
export function WellnessControls({
  wellness,
  overridden,
  change,
  reset,
}: {
  wellness: Wellness;
  overridden: boolean;
  change(next: Partial<Wellness>): void;
  reset(): void;
}) {
  return (
    <fieldset className="wellness">
      <legend>Media</legend>
      <label>
        Blur
        <select value={wellness.blur} onChange={(e) => change({ blur: Number(e.target.value) as Wellness['blur'] })}>
          {BLUR_LABELS.map((label, level) => (
            <option key={label} value={level}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        <input type="checkbox" checked={wellness.greyscale} onChange={(e) => change({ greyscale: e.target.checked })} /> Greyscale
      </label>
      {overridden && (
        <button type="button" className="link" onClick={reset}>
          Use organization default
        </button>
      )}
    </fieldset>
  );
}
