import { useEffect, useState } from 'react';

/**
 * Time left on the lock. The countdown itself is not read aloud every second; a screen reader
 * hears once when less than a minute is left, and when the lock has expired.
 */
export function LockTimer({ expiresAt }: { expiresAt: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = Math.max(0, Math.round((Date.parse(expiresAt) - now) / 1000));
  const text = left === 0 ? 'Lock expired' : `Lock: ${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')} left`;
  const warning = left === 0 ? 'The lock on this job has expired: another moderator may take it.' : left <= 60 ? 'Less than a minute left on the lock.' : '';
  return (
    <>
      <span className={left <= 60 ? 'lock low' : 'lock'} role="timer" data-seconds-left={left} data-expires-at={expiresAt}>
        {text}
      </span>
      <span className="sr-only" role="status">
        {warning}
      </span>
    </>
  );
}
