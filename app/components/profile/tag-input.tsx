import { useId, useState, type KeyboardEvent } from "react";
import { LIST_ITEM_MAX, LIST_MAX_ITEMS } from "~/schemas/profile-limits";

interface TagInputProps {
  id: string;
  label: string;
  values: string[];
  onChange(values: string[]): void;
  onBlur?(): void;
  placeholder?: string;
  suggestions?: readonly string[];
  error?: string;
  hint?: string;
}

/**
 * A list of short texts edited as tags: Enter or a comma adds what was typed, Backspace on an
 * empty field removes the last tag, and suggestions add with one click.
 */
export function TagInput({
  id,
  label,
  values,
  onChange,
  onBlur,
  placeholder,
  suggestions = [],
  error,
  hint,
}: TagInputProps) {
  const [draft, setDraft] = useState("");
  const hintId = useId();
  const errorId = `${id}-error`;
  const full = values.length >= LIST_MAX_ITEMS;

  const addAll = (raws: string[]) => {
    const next = [...values];
    for (const raw of raws) {
      const text = raw.trim().replace(/\s+/g, " ").slice(0, LIST_ITEM_MAX);
      if (!text || next.length >= LIST_MAX_ITEMS) continue;
      if (next.some((v) => v.toLowerCase() === text.toLowerCase())) continue;
      next.push(text);
    }
    if (next.length !== values.length) onChange(next);
  };
  const add = (raw: string) => addAll([raw]);

  const commitDraft = () => {
    if (draft.trim()) add(draft);
    setDraft("");
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "Enter" || event.key === ",") {
      event.preventDefault();
      commitDraft();
    } else if (event.key === "Backspace" && draft === "" && values.length > 0) {
      onChange(values.slice(0, -1));
    }
  };

  const open = suggestions.filter((s) => !values.some((v) => v.toLowerCase() === s.toLowerCase()));

  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="tag-input" data-invalid={error ? true : undefined}>
        <ul className="tag-list" aria-label={`${label}: ${values.length} added`}>
          {values.map((value) => (
            <li key={value} className="tag">
              <span>{value}</span>
              <button
                type="button"
                className="tag-remove"
                aria-label={`Remove ${value}`}
                onClick={() => onChange(values.filter((v) => v !== value))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
        <input
          id={id}
          className="tag-input-field"
          value={draft}
          maxLength={LIST_ITEM_MAX}
          placeholder={full ? "That's the maximum" : placeholder}
          disabled={full}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : hintId}
          onChange={(e) => {
            const text = e.target.value;
            if (text.includes(",")) {
              addAll(text.split(",").slice(0, -1));
              setDraft(text.split(",").pop() ?? "");
            } else setDraft(text);
          }}
          onKeyDown={onKeyDown}
          onBlur={() => {
            commitDraft();
            onBlur?.();
          }}
        />
      </div>
      {error ? (
        <p id={errorId} className="field-error" role="alert">
          {error}
        </p>
      ) : (
        <p id={hintId} className="field-hint">
          {hint ?? "Press Enter or comma to add."}
        </p>
      )}
      {open.length > 0 && !full ? (
        <div className="tag-suggestions" aria-label={`Suggested ${label.toLowerCase()}`}>
          {open.slice(0, 12).map((s) => (
            <button key={s} type="button" className="chip chip-add" onClick={() => add(s)}>
              + {s}
            </button>
          ))}
        </div>
      ) : null}
    </div>
  );
}
