import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from "react";

export interface ComboOption<T> {
  key: string;
  label: string;
  value: T;
}

interface ComboboxProps<T> {
  id: string;
  label: string;
  /** What the closed field shows: the chosen option's label, or null. */
  selectedLabel: string | null;
  placeholder: string;
  disabled?: boolean;
  /** Called each time the list opens; may load its options then. */
  loadOptions(): Promise<ComboOption<T>[]>;
  onSelect(option: ComboOption<T>): void;
  error?: string;
  invalid?: boolean;
}

const MAX_SHOWN = 80;

const fold = (s: string) =>
  s
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase();

/**
 * A searchable list (the ARIA combobox pattern): type to filter, arrows to move, Enter to choose,
 * Escape to close. Its options are loaded when it opens, so a page carries none of them.
 */
export function Combobox<T>({
  id,
  label,
  selectedLabel,
  placeholder,
  disabled,
  loadOptions,
  onSelect,
  error,
  invalid,
}: ComboboxProps<T>) {
  const listId = useId();
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const [options, setOptions] = useState<ComboOption<T>[] | null>(null);
  const [loading, setLoading] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [active, setActive] = useState(0);
  const listRef = useRef<HTMLUListElement>(null);
  const loadRef = useRef(loadOptions);
  loadRef.current = loadOptions;

  useEffect(() => {
    if (!open) return;
    let cancelled = false;
    setOptions(null);
    setLoading(true);
    setLoadError(null);
    loadRef
      .current()
      .then((list) => {
        if (!cancelled) setOptions(list);
      })
      .catch(() => {
        if (!cancelled) setLoadError("Could not load the list. Please try again.");
      })
      .finally(() => {
        if (!cancelled) setLoading(false);
      });
    return () => {
      cancelled = true;
    };
  }, [open]);

  const matches = useMemo(() => {
    if (!options) return [];
    const q = fold(query.trim());
    if (!q) return options;
    const starts: ComboOption<T>[] = [];
    const contains: ComboOption<T>[] = [];
    for (const o of options) {
      const l = fold(o.label);
      if (l.startsWith(q)) starts.push(o);
      else if (l.includes(q)) contains.push(o);
    }
    return [...starts, ...contains];
  }, [options, query]);
  const shown = matches.slice(0, MAX_SHOWN);

  useEffect(() => {
    listRef.current
      ?.querySelector<HTMLElement>(`[data-index="${active}"]`)
      ?.scrollIntoView({ block: "nearest" });
  }, [active]);

  const choose = (option: ComboOption<T>) => {
    onSelect(option);
    setOpen(false);
    setQuery("");
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "ArrowDown") {
      event.preventDefault();
      if (!open) setOpen(true);
      else setActive((i) => Math.min(i + 1, shown.length - 1));
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      setActive((i) => Math.max(i - 1, 0));
    } else if (event.key === "Enter") {
      if (open && shown[active]) {
        event.preventDefault();
        choose(shown[active]);
      }
    } else if (event.key === "Escape") {
      setOpen(false);
      setQuery("");
    }
  };

  const activeId = open && shown[active] ? `${listId}-${active}` : undefined;
  const errorId = `${id}-error`;

  return (
    <div className="field combobox">
      <label htmlFor={id}>{label}</label>
      <div className="combobox-control">
        <input
          id={id}
          className="input"
          role="combobox"
          autoComplete="off"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={listId}
          aria-activedescendant={activeId}
          aria-invalid={error || invalid ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          disabled={disabled}
          placeholder={selectedLabel ?? placeholder}
          value={open ? query : (selectedLabel ?? "")}
          onFocus={() => {
            setOpen(true);
            setActive(0);
          }}
          onClick={() => setOpen(true)}
          onBlur={() => {
            setOpen(false);
            setQuery("");
          }}
          onChange={(e) => {
            setQuery(e.target.value);
            setActive(0);
            setOpen(true);
          }}
          onKeyDown={onKeyDown}
        />
        <span className="combobox-caret" aria-hidden="true">
          ▾
        </span>
      </div>
      <ul
        ref={listRef}
        id={listId}
        role="listbox"
        aria-label={label}
        className="combobox-list"
        hidden={!open}
      >
        {loading && !options ? <li className="combobox-note">Loading…</li> : null}
        {loadError ? <li className="combobox-note">{loadError}</li> : null}
        {options && shown.length === 0 ? <li className="combobox-note">No matches</li> : null}
        {shown.map((option, index) => (
          <li
            key={option.key}
            id={`${listId}-${index}`}
            data-index={index}
            role="option"
            aria-selected={index === active}
            className="combobox-option"
            // Keep focus in the field so the click lands before blur closes the list.
            onMouseDown={(e) => e.preventDefault()}
            onMouseEnter={() => setActive(index)}
            onClick={() => choose(option)}
          >
            {option.label}
          </li>
        ))}
        {matches.length > MAX_SHOWN ? (
          <li className="combobox-note">
            {matches.length - MAX_SHOWN} more: keep typing to narrow down
          </li>
        ) : null}
      </ul>
      {error ? (
        <p id={errorId} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
