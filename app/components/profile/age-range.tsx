import type { CSSProperties } from "react";
import { AGE_RANGE } from "~/schemas/profile-limits";

interface AgeRangeProps {
  id: string;
  label: string;
  value: { min: number; max: number };
  onChange(value: { min: number; max: number }): void;
  onBlur?(): void;
  minError?: string;
  maxError?: string;
}

const LOW = AGE_RANGE.minLow;
const HIGH = AGE_RANGE.maxHigh;
const percent = (v: number) => ((Math.min(HIGH, Math.max(LOW, v)) - LOW) / (HIGH - LOW)) * 100;

/**
 * The desired age range: a slider with two handles (the minimum stays below the maximum) and two
 * number fields for exact values. The number fields may hold any number while typing, so the
 * shared schema's messages show beside them.
 */
export function AgeRange({
  id,
  label,
  value,
  onChange,
  onBlur,
  minError,
  maxError,
}: AgeRangeProps) {
  const style = {
    "--from": `${percent(value.min)}%`,
    "--to": `${percent(value.max)}%`,
  } as CSSProperties;
  const numberOrNaN = (text: string) => (text.trim() === "" ? Number.NaN : Number(text));
  return (
    <fieldset className="field age-range" aria-describedby={`${id}-summary`}>
      <legend className="label">{label}</legend>
      <p id={`${id}-summary`} className="age-range-summary">
        {`${Number.isFinite(value.min) ? value.min : "–"} to ${Number.isFinite(value.max) ? value.max : "–"} years`}
      </p>
      <div className="range-dual" style={style}>
        <div className="range-track" aria-hidden="true">
          <div className="range-fill" />
        </div>
        <input
          type="range"
          aria-label="Minimum age"
          min={LOW}
          max={HIGH}
          step={1}
          value={Number.isFinite(value.min) ? value.min : LOW}
          aria-valuetext={`${value.min} years`}
          onChange={(e) => {
            const min = Math.min(Number(e.target.value), AGE_RANGE.minHigh, value.max - 1);
            onChange({ ...value, min: Math.max(LOW, min) });
          }}
          onBlur={onBlur}
        />
        <input
          type="range"
          aria-label="Maximum age"
          min={LOW}
          max={HIGH}
          step={1}
          value={Number.isFinite(value.max) ? value.max : HIGH}
          aria-valuetext={`${value.max} years`}
          onChange={(e) => {
            const max = Math.max(Number(e.target.value), AGE_RANGE.maxLow, value.min + 1);
            onChange({ ...value, max: Math.min(HIGH, max) });
          }}
          onBlur={onBlur}
        />
      </div>
      <div className="age-range-inputs">
        <div className="field">
          <label htmlFor={`${id}-min`}>From</label>
          <input
            id={`${id}-min`}
            className="input"
            type="number"
            inputMode="numeric"
            min={AGE_RANGE.minLow}
            max={AGE_RANGE.minHigh}
            value={Number.isFinite(value.min) ? value.min : ""}
            aria-invalid={minError ? true : undefined}
            aria-describedby={minError ? `${id}-min-error` : undefined}
            onChange={(e) => onChange({ ...value, min: numberOrNaN(e.target.value) })}
            onBlur={onBlur}
          />
          {minError ? (
            <p id={`${id}-min-error`} className="field-error" role="alert">
              {minError}
            </p>
          ) : null}
        </div>
        <div className="field">
          <label htmlFor={`${id}-max`}>To</label>
          <input
            id={`${id}-max`}
            className="input"
            type="number"
            inputMode="numeric"
            min={AGE_RANGE.maxLow}
            max={AGE_RANGE.maxHigh}
            value={Number.isFinite(value.max) ? value.max : ""}
            aria-invalid={maxError ? true : undefined}
            aria-describedby={maxError ? `${id}-max-error` : undefined}
            onChange={(e) => onChange({ ...value, max: numberOrNaN(e.target.value) })}
            onBlur={onBlur}
          />
          {maxError ? (
            <p id={`${id}-max-error`} className="field-error" role="alert">
              {maxError}
            </p>
          ) : null}
        </div>
      </div>
    </fieldset>
  );
}
