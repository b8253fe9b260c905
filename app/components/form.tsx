import {
  useCallback,
  useRef,
  useState,
  type FormEvent,
  type InputHTMLAttributes,
  type ReactNode,
} from "react";
import type { z } from "zod";
import { fieldErrors, firstErrors, type FieldErrorMap } from "~/schemas/validation";
import { useRootData } from "~/lib/root-data";
import { Icon } from "./icons";

export function useCsrfToken(): string {
  return useRootData()?.csrfToken ?? "";
}

/** The hidden `_csrf` field every plain form carries (docs/api.md "CSRF"). */
export function CsrfInput() {
  return <input type="hidden" name="_csrf" value={useCsrfToken()} />;
}

/** A form's shared zod schema, or a loader for it (so zod downloads only once the member types). */
export type SchemaSource<S extends z.ZodType> = S | (() => Promise<S>);

/**
 * Validates a form with its shared zod schema as the member types: a field shows its message once
 * it has been touched, and a submit with errors is stopped before it leaves the browser. Every
 * error of the server's latest answer shows on its field, typed in or not, until that field is
 * edited again (a wrong password arrives for fields the member has just filled in). Given a
 * loader, the schema (and zod) is fetched on the first keystroke or submit, not with the page: a
 * submit that comes first waits for it once.
 */
export function useFormValidation<S extends z.ZodType>(
  source: SchemaSource<S>,
  serverErrors?: FieldErrorMap,
) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  // The fields edited since the server's latest answer (`serverErrors` is a new object each time).
  const [edited, setEdited] = useState<{ answer?: FieldErrorMap; names: Set<string> }>({
    names: new Set(),
  });
  const editedSince = edited.answer === serverErrors ? edited.names : new Set<string>();
  const loaded = useRef<S | null>(typeof source === "function" ? null : source);
  const loading = useRef<Promise<S> | null>(null);

  const load = useCallback((): Promise<S> => {
    if (loaded.current) return Promise.resolve(loaded.current);
    if (typeof source !== "function") return Promise.resolve(source);
    loading.current ??= source().then((schema) => (loaded.current = schema));
    return loading.current;
  }, [source]);

  const validate = (schema: S, form: HTMLFormElement) => {
    const data: Record<string, unknown> = {};
    for (const [k, v] of new FormData(form).entries()) if (typeof v === "string") data[k] = v;
    const result = schema.safeParse(data);
    return result.success ? {} : firstErrors(fieldErrors(result.error));
  };

  const onChange = (event: FormEvent<HTMLFormElement>) => {
    const target = event.target as HTMLInputElement;
    if (!target.name) return;
    const form = event.currentTarget;
    const nextTouched = { ...touched, [target.name]: true };
    setTouched(nextTouched);
    setEdited({ answer: serverErrors, names: new Set(editedSince).add(target.name) });
    void load().then((schema) => {
      const all = validate(schema, form);
      setErrors(Object.fromEntries(Object.entries(all).filter(([k]) => nextTouched[k])));
    });
  };

  const stopWithErrors = (all: Record<string, string>) => {
    setErrors(all);
    setTouched(Object.fromEntries(Object.keys(all).map((k) => [k, true])));
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const form = event.currentTarget;
    const schema = loaded.current;
    if (!schema) {
      // Not loaded yet: hold this submit, validate once it arrives, then submit again.
      event.preventDefault();
      void load().then((ready) => {
        const all = validate(ready, form);
        if (Object.keys(all).length > 0) stopWithErrors(all);
        else form.requestSubmit();
      });
      return;
    }
    const all = validate(schema, form);
    if (Object.keys(all).length > 0) {
      event.preventDefault();
      stopWithErrors(all);
    }
  };

  const server = firstErrors(serverErrors);
  const errorFor = (name: string): string | undefined =>
    errors[name] ?? (editedSince.has(name) ? undefined : server[name]);

  return { onChange, onSubmit, errorFor };
}

/**
 * The server's general message for a form's alert: shown unless one of the form's own fields
 * already carries an error from the same answer (a 429, a token error on a hidden field, or any
 * error keyed outside the form's fields is said here, so nothing the server sends goes unseen).
 */
export function unplacedMessage(
  answer: { message?: string; errors?: FieldErrorMap } | null | undefined,
  fields: readonly string[],
): string | null {
  if (!answer?.message) return null;
  const placed = fields.some((f) => (answer.errors?.[f]?.length ?? 0) > 0);
  return placed ? null : answer.message;
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
