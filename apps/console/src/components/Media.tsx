import { useEffect, useState } from 'react';
import { BLUR_PIXELS, type Wellness } from '../app/wellness';

export type MediaKind = 'IMAGE' | 'VIDEO' | 'AUDIO';

/**
 * One piece of media, loaded by the browser straight from its URL (spec 1.9: never proxied or
 * stored by Warden). Images and video start blurred and grey as the wellness settings say, until
 * the moderator reveals them; video never starts by itself, and starts muted.
 */
export function Media({ kind, url, wellness, revealed, onToggle }: { kind: MediaKind; url: string; wellness: Wellness; revealed: boolean; onToggle(): void }) {
  const [failed, setFailed] = useState(false);
  useEffect(() => setFailed(false), [url]);
  if (!/^https?:\/\//i.test(url)) return <span className="muted">Not a web address: {url}</span>;
  if (kind === 'AUDIO') {
    return <audio controls preload="none" src={url} aria-label="Audio from the item" />;
  }
  const hidden = !revealed && (wellness.blur > 0 || wellness.greyscale);
  const filter = hidden ? `blur(${BLUR_PIXELS[wellness.blur]}px)${wellness.greyscale ? ' grayscale(1)' : ''}` : 'none';
  const label = kind === 'IMAGE' ? 'image' : 'video';
  return (
    <figure className="media">
      <div className="media-frame" data-hidden={hidden ? 'true' : 'false'}>
        {failed ? (
          <span className="muted">The {label} could not be loaded from {new URL(url).host}</span>
        ) : kind === 'IMAGE' ? (
          <img src={url} alt={hidden ? `Blurred ${label}: reveal to see it` : `Image from the item`} style={{ filter }} referrerPolicy="no-referrer" onError={() => setFailed(true)} onClick={onToggle} />
        ) : (
          <video src={url} controls muted preload="metadata" style={{ filter }} onError={() => setFailed(true)} aria-label={hidden ? 'Blurred video' : 'Video from the item'} />
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
