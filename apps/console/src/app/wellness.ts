import { useCallback, useEffect, useState } from 'react';

/**
 * Moderator wellness: how media is shown before a moderator chooses to look. The organization
 * sets the defaults (org.settings.wellness); each moderator may override blur and greyscale, and
 * that choice is remembered in this browser for this user.
 */
export interface Wellness {
  /** 0 = none … 3 = strongest */
  readonly blur: 0 | 1 | 2 | 3;
  readonly greyscale: boolean;
  /** Suggest a break after this many items with media (0: never). */
  readonly breakAfterItems: number;
  /** ON_REVEAL: images and video are loaded only once revealed, not with the job (the organization's choice). */
  readonly loadMedia: 'ON_OPEN' | 'ON_REVEAL';
}

export const BLUR_LABELS = ['None', 'Light', 'Medium', 'Strong'] as const;
export const DEFAULT_WELLNESS: Wellness = { blur: 2, greyscale: true, breakAfterItems: 0, loadMedia: 'ON_OPEN' };

type Override = { blur?: Wellness['blur']; greyscale?: boolean };
const keyOf = (userId: string) => `warden.wellness.${userId}`;

function readOverride(userId: string): Override {
  try {
    const parsed = JSON.parse(localStorage.getItem(keyOf(userId)) ?? '{}') as Override;
    const out: Override = {};
    if (parsed.blur === 0 || parsed.blur === 1 || parsed.blur === 2 || parsed.blur === 3) out.blur = parsed.blur;
    if (typeof parsed.greyscale === 'boolean') out.greyscale = parsed.greyscale;
    return out;
  } catch {
    return {};
  }
}

/** The organization's defaults with this user's remembered override on top. */
export function useWellness(userId: string, organization: Wellness) {
  const [override, setOverride] = useState<Override>(() => readOverride(userId));
  useEffect(() => setOverride(readOverride(userId)), [userId]);
  const change = useCallback(
    (next: Override) => {
      setOverride((current) => {
        const merged = { ...current, ...next };
        localStorage.setItem(keyOf(userId), JSON.stringify(merged));
        return merged;
      });
    },
    [userId],
  );
  const reset = useCallback(() => {
    localStorage.removeItem(keyOf(userId));
    setOverride({});
  }, [userId]);
  return { wellness: { ...organization, ...override } as Wellness, overridden: Object.keys(override).length > 0, change, reset };
}

const SEEN_KEY = 'warden.wellness.seen';
/** Items with media seen since the last break, counted for this browser tab's working session. */
export function countMediaItem(): number {
  const seen = Number(sessionStorage.getItem(SEEN_KEY) ?? '0') + 1;
  sessionStorage.setItem(SEEN_KEY, String(seen));
  return seen;
}
export function tookBreak(): void {
  sessionStorage.setItem(SEEN_KEY, '0');
}
