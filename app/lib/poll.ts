import { useRevalidator } from "@remix-run/react";
import { useEffect, useState } from "react";

/**
 * Reloads the page's data every `intervalMs` while `waiting` (a payment the provider has not
 * confirmed yet), for at most `attempts` times; returns true once it has given up.
 */
export function usePollWhile(waiting: boolean, intervalMs = 1500, attempts = 40): boolean {
  const { revalidate, state } = useRevalidator();
  const [count, setCount] = useState(0);
  useEffect(() => {
    if (!waiting || count >= attempts || state !== "idle") return;
    const timer = setTimeout(() => {
      setCount((n) => n + 1);
      revalidate();
    }, intervalMs);
    return () => clearTimeout(timer);
  }, [waiting, count, attempts, intervalMs, state, revalidate]);
  return waiting && count >= attempts;
}
