import { useEffect, useState } from 'react';
import { shownUrl } from '../app/format';
import type { Wellness } from '../app/wellness';

export type MediaKind = 'IMAGE' | 'VIDEO' | 'AUDIO';

/**
 * One piece of media, loaded by the browser straight from its URL (docs/console.md, "Media and moderator wellness": never proxied or
 * stored by Warden). Images and video start blurred and grey as the wellness settings say, until
 * the moderator reveals them; video never starts by itself, and starts muted. The filter comes
 * from CSS classes (blur-0 … blur-3, grey), so the page needs no inline styles. With
 * `loadMedia: ON_REVEAL` nothing is requested from the media's host until the moderator reveals
 * it: no element with its URL exists before (the host, perhaps the author's, would learn the
 * moderator's address and when the job was opened).
 */
export function Media({ kind, url, wellness, revealed, onToggle }: { kind: MediaKind; url: string; wellness: Wellness; revealed: boolean; onToggle(): void }) {
  const [failed, setFailed] = useState(false);
  useEffect(() => setFailed(false), [url]);
  if (!/^https?:\/\//i.test(url)) return <span className="muted">Not a web address: the item's value is not shown</span>;
  if (kind === 'AUDIO') {
    return <audio controls preload="none" src={url} aria-label="Audio from the item" />;
  }
  const unloaded = !revealed && wellness.loadMedia === 'ON_REVEAL';
  const hidden = unloaded || (!revealed && (wellness.blur > 0 || wellness.greyscale));
  const label = kind === 'IMAGE' ? 'image' : 'video';
  const frame = ['media-frame', ...(hidden ? [`blur-${wellness.blur}`, ...(wellness.greyscale ? ['grey'] : [])] : [])].join(' ');
  return (
    <figure className="media">
      <div className={frame} data-hidden={hidden ? 'true' : 'false'}>
        {unloaded ? (
          <button type="button" className="media-unloaded" onClick={onToggle}>
            The {label} from {shownUrl(url)} is loaded only when you reveal it
          </button>
        ) : failed ? (
          <span className="muted">
            The {label} could not be loaded from {shownUrl(url)}
          </span>
        ) : kind === 'IMAGE' ? (
          <img
            src={url}
            alt={hidden ? `Blurred ${label}: reveal to see it` : 'Image from the item'}
            referrerPolicy="no-referrer"
            onError={() => setFailed(true)}
            onClick={onToggle}
          />
        ) : (
          <>
            <video
              src={url}
              controls={!hidden}
              muted
              preload="metadata"
              onError={() => setFailed(true)}
              aria-label={hidden ? 'Blurred video' : 'Video from the item'}
            />
            {/* While hidden the blurred controls would be unreadable: a click anywhere reveals instead. */}
            {hidden && <button type="button" className="media-cover" aria-label="Reveal video" tabIndex={-1} onClick={onToggle} />}
          </>
        )}
      </div>
      <figcaption>
        <button type="button" className="reveal" aria-pressed={!hidden} onClick={onToggle}>
          {hidden ? `Reveal ${label}` : `Blur ${label}`}
        </button>{' '}
        <a href={url} target="_blank" rel="noreferrer noopener">
          Open original
        </a>
      </figcaption>
    </figure>
  );
}
