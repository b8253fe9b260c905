import type { MetaFunction } from "@remix-run/cloudflare";
import { APPEARANCES, type Appearance } from "~/lib/theme";
import { titleMeta } from "~/lib/title";
import { appearanceAtom, setAppearanceAtom } from "~/state/appearance";
import { useAtomValue, useSetAtom } from "~/state/jotai";

export const meta: MetaFunction = () => titleMeta("Appearance Settings");

const LABELS: Record<Appearance, { title: string; hint: string }> = {
  dark: { title: "Dark", hint: "Easy on the eyes at night" },
  light: { title: "Light", hint: "Bright and crisp" },
  system: { title: "System", hint: "Follow your device" },
};

export default function AppearanceSettingsPage() {
  const appearance = useAtomValue(appearanceAtom);
  const setAppearance = useSetAtom(setAppearanceAtom);
  return (
    <section className="card">
      <h2>Appearance</h2>
      <p className="muted">Choose how Heartline looks on this device.</p>
      <fieldset className="choices" style={{ border: 0, padding: 0, margin: 0 }}>
        <legend className="sr-only">Theme</legend>
        {APPEARANCES.map((value) => (
          <label key={value} className="choice" data-checked={appearance === value}>
            <input
              type="radio"
              name="appearance"
              value={value}
              checked={appearance === value}
              onChange={() => setAppearance(value)}
            />
            <span className={`swatch swatch-${value}`} aria-hidden="true" />
            <strong>{LABELS[value].title}</strong>
            <span className="muted">{LABELS[value].hint}</span>
          </label>
        ))}
      </fieldset>
    </section>
  );
}
