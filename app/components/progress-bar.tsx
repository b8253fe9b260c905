import { useNavigation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { PROGRESS_DELAY_MS, PROGRESS_TRICKLE_MS, trickle } from "~/lib/progress";

/** The grey navigation progress bar: only for navigations that take longer than 250 ms. */
export function ProgressBar() {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const [progress, setProgress] = useState<number | null>(null);

  useEffect(() => {
    if (!busy) {
      setProgress((p) => (p === null ? null : 1));
      const hide = setTimeout(() => setProgress(null), 300);
      return () => clearTimeout(hide);
    }
    let interval: ReturnType<typeof setInterval> | undefined;
    const start = setTimeout(() => {
      setProgress(0.08);
      interval = setInterval(() => setProgress((p) => trickle(p ?? 0.08)), PROGRESS_TRICKLE_MS);
    }, PROGRESS_DELAY_MS);
    return () => {
      clearTimeout(start);
      if (interval) clearInterval(interval);
    };
  }, [busy]);

  if (progress === null) return null;
  return (
    <div
      className="nprogress"
      role="progressbar"
      aria-label="Loading"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(progress * 100)}
    >
      <div
        className="nprogress-bar"
        style={{ width: `${progress * 100}%`, opacity: progress >= 1 ? 0 : 1 }}
      />
    </div>
  );
}
