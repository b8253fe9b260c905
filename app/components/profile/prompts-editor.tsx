import { useEffect, useState } from "react";
import {
  PROMPT_ANSWER_MAX,
  PROMPTS,
  PROMPTS_MAX,
  promptText,
  type PromptEntry,
} from "~/schemas/prompt-catalog";
import type { ProfileFormState } from "./profile-fields";

const answerId = (i: number) => `profile-prompt-${i}`;

/**
 * The profile's prompts (docs/api.md "Distance, travel and prompts"), part of the profile form:
 * pick a prompt, write the answer, up to three, remove one. Each answer is a labelled text area
 * with its count and its message (`prompts.0.answer`); the pick is a native select, so it works
 * the same by touch, mouse and keyboard.
 */
export function PromptsEditor({ form }: { form: ProfileFormState }) {
  const prompts = form.values.prompts;
  const [choice, setChoice] = useState("");
  const [focusIndex, setFocusIndex] = useState<number | null>(null);
  const chosen = new Set(prompts.map((p) => p.prompt_id));
  const open = PROMPTS.filter((p) => !chosen.has(p.id));
  const full = prompts.length >= PROMPTS_MAX;
  const listError = form.errorFor("prompts");

  useEffect(() => {
    if (focusIndex === null) return;
    document.getElementById(answerId(focusIndex))?.focus();
    setFocusIndex(null);
  }, [focusIndex]);

  const change = (next: PromptEntry[]) => form.set("prompts", next, { touch: false });
  const add = () => {
    if (!choice || full || chosen.has(choice)) return;
    change([...prompts, { prompt_id: choice, answer: "" }]);
    setChoice("");
    setFocusIndex(prompts.length);
  };

  return (
    <div className="prompts-editor">
      {prompts.length > 0 ? (
        <ol className="prompt-edit-list">
          {prompts.map((entry, i) => {
            const text = promptText(entry.prompt_id) ?? entry.prompt_id;
            const error =
              form.errorFor(`prompts.${i}.answer`) ??
              form.errorFor(`prompts.${i}.prompt_id`) ??
              form.errorFor(`prompts.${i}`);
            const id = answerId(i);
            return (
              <li key={entry.prompt_id} className="prompt-edit">
                <label htmlFor={id} className="prompt-edit-q">
                  {text}
                </label>
                <textarea
                  id={id}
                  name={`prompts.${i}.answer`}
                  className="input textarea"
                  rows={3}
                  maxLength={PROMPT_ANSWER_MAX}
                  placeholder="Your answer"
                  value={entry.answer}
                  aria-invalid={error ? true : undefined}
                  aria-describedby={error ? `${id}-error ${id}-count` : `${id}-count`}
                  onChange={(e) =>
                    change(prompts.map((p, j) => (j === i ? { ...p, answer: e.target.value } : p)))
                  }
                  onBlur={() => form.touch(`prompts.${i}`)}
                />
                <div className="field-foot">
                  {error ? (
                    <p id={`${id}-error`} className="field-error" role="alert">
                      {error}
                    </p>
                  ) : (
                    <span />
                  )}
                  <span id={`${id}-count`} className="field-hint">
                    {entry.answer.length} / {PROMPT_ANSWER_MAX}
                  </span>
                </div>
                <button
                  type="button"
                  className="btn btn-ghost btn-sm prompt-remove"
                  aria-label={`Remove the prompt “${text}”`}
                  onClick={() => change(prompts.filter((_, j) => j !== i))}
                >
                  Remove
                </button>
              </li>
            );
          })}
        </ol>
      ) : (
        <p className="muted">
          Prompts give members something to like and an easy first message. Answer up to three.
        </p>
      )}
      {full ? (
        <p className="field-hint">That&apos;s three prompts. Remove one to choose another.</p>
      ) : (
        <div className="prompt-add">
          <div className="field">
            <label htmlFor="profile-prompt-choice">
              {prompts.length === 0 ? "Choose a prompt" : "Add another prompt"}
            </label>
            <select
              id="profile-prompt-choice"
              className="input"
              value={choice}
              onChange={(e) => setChoice(e.target.value)}
            >
              <option value="">Pick a prompt…</option>
              {open.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.text}
                </option>
              ))}
            </select>
          </div>
          <button type="button" className="btn btn-secondary" disabled={!choice} onClick={add}>
            Add prompt
          </button>
        </div>
      )}
      {listError ? (
        <p className="field-error" role="alert">
          {listError}
        </p>
      ) : null}
    </div>
  );
}
