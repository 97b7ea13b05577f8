import { useEffect, useState } from 'react';

/** Time left on the lock, announced politely once a minute and when it runs low. */
export function LockTimer({ expiresAt }: { expiresAt: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = Math.max(0, Math.round((Date.parse(expiresAt) - now) / 1000));
  const text = left === 0 ? 'Lock expired' : `Lock: ${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')} left`;
  return (
    <span className={left < 60 ? 'lock low' : 'lock'} role="timer" aria-live={left < 60 ? 'assertive' : 'off'} data-seconds-left={left}>
      {text}
    </span>
  );
}
