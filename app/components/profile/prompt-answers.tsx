import type { ReactNode } from "react";
import type { PromptAnswer } from "~/schemas/prompt-catalog";

/** Answered prompts as other members read them, each with a control of its own if given. */
export function PromptAnswers({
  prompts,
  action,
}: {
  prompts: PromptAnswer[];
  /** A control for each answer (the like with a comment), if any. */
  action?: (prompt: PromptAnswer) => ReactNode;
}) {
  return (
    <ul className="prompt-answers">
      {prompts.map((p) => (
        <li key={p.prompt_id} className="prompt-answer">
          <p className="prompt-answer-q">{p.text}</p>
          <p className="prompt-answer-a">{p.answer}</p>
          {action ? <div className="prompt-answer-action">{action(p)}</div> : null}
        </li>
      ))}
    </ul>
  );
}
