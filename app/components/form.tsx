import { useRouteLoaderData } from "@remix-run/react";
import {
  useCallback,
  useState,
  type FormEvent,
  type InputHTMLAttributes,
  type ReactNode,
} from "react";
import type { z } from "zod";
import { fieldErrors, firstErrors, type FieldErrorMap } from "~/schemas/validation";
import type { RootLoaderData } from "~/root";
import { Icon } from "./icons";

export function useCsrfToken(): string {
  return useRouteLoaderData<RootLoaderData>("root")?.csrfToken ?? "";
}

/** The hidden `_csrf` field every plain form carries (API.md "Conventions"). */
export function CsrfInput() {
  return <input type="hidden" name="_csrf" value={useCsrfToken()} />;
}

/**
 * Validates a form with its shared zod schema as the member types: a field shows its message once
 * it has been touched, and a submit with errors is stopped before it leaves the browser. Server
 * errors show until the field is edited.
 */
export function useFormValidation<S extends z.ZodType>(schema: S, serverErrors?: FieldErrorMap) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [touched, setTouched] = useState<Record<string, boolean>>({});

  const validate = useCallback(
    (form: HTMLFormElement) => {
      const data: Record<string, unknown> = {};
      for (const [k, v] of new FormData(form).entries()) if (typeof v === "string") data[k] = v;
      const result = schema.safeParse(data);
      return result.success ? {} : firstErrors(fieldErrors(result.error));
    },
    [schema],
  );

  const onChange = (event: FormEvent<HTMLFormElement>) => {
    const target = event.target as HTMLInputElement;
    if (!target.name) return;
    const nextTouched = { ...touched, [target.name]: true };
    setTouched(nextTouched);
    const all = validate(event.currentTarget);
    setErrors(Object.fromEntries(Object.entries(all).filter(([k]) => nextTouched[k])));
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const all = validate(event.currentTarget);
    if (Object.keys(all).length > 0) {
      event.preventDefault();
      setErrors(all);
      setTouched(Object.fromEntries(Object.keys(all).map((k) => [k, true])));
    }
  };

  const server = firstErrors(serverErrors);
  const errorFor = (name: string): string | undefined =>
    errors[name] ?? (touched[name] ? undefined : server[name]);

  return { onChange, onSubmit, errorFor };
}

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  name: string;
  label: string;
  error?: string;
  hint?: ReactNode;
}

export function Field({
  name,
  label,
  error,
  hint,
  id,
  after,
  ...input
}: FieldProps & { after?: ReactNode }) {
  const inputId = id ?? `field-${name}`;
  const errorId = `${inputId}-error`;
  const control = (
    <input
      id={inputId}
      name={name}
      className="input"
      aria-invalid={error ? true : undefined}
      aria-describedby={error ? errorId : undefined}
      {...input}
    />
  );
  return (
    <div className="field">
      <label htmlFor={inputId}>{label}</label>
      {after ? (
        <div className="input-with-action">
          {control}
          {after}
        </div>
      ) : (
        control
      )}
      {hint && !error ? <p className="field-hint">{hint}</p> : null}
      {error ? (
        <p id={errorId} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function FormAlert({
  message,
  tone = "error",
}: {
  message?: string | null;
  tone?: "error" | "success" | "warning";
}) {
  if (!message) return null;
  return (
    <div className={`alert alert-${tone}`} role={tone === "error" ? "alert" : "status"}>
      {message}
    </div>
  );
}

/** A password field with a "Show password" toggle beside it (the input keeps its label). */
export function PasswordField(props: Omit<FieldProps, "type">) {
  const [shown, setShown] = useState(false);
  return (
    <Field
      {...props}
      type={shown ? "text" : "password"}
      autoCapitalize="none"
      spellCheck={false}
      after={
        <button
          type="button"
          className="input-action"
          aria-pressed={shown}
          aria-label="Show password"
          aria-controls={props.id ?? `field-${props.name}`}
          onClick={() => setShown((v) => !v)}
        >
          <Icon name={shown ? "eyeOff" : "eye"} size={20} />
        </button>
      }
    />
  );
}
