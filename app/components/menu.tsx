import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from "react";

export interface MenuItem {
  label: string;
  onSelect: () => void;
  tone?: "danger";
}

/**
 * A menu button (WAI-ARIA "menu button" pattern): the button opens a list of actions; arrow keys,
 * Home and End move between them, Enter or Space chooses one, Escape (or a click outside, or Tab)
 * closes it. Closing returns focus to the button, so a dialog opened by an item returns there too.
 */
export function Menu({
  label,
  icon,
  items,
  className,
  align = "end",
}: {
  /** The button's accessible name ("More actions"). */
  label: string;
  icon: ReactNode;
  items: MenuItem[];
  className?: string;
  align?: "start" | "end";
}) {
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  // Which item takes focus when the menu opens (first, or last after ArrowUp).
  const focusOnOpen = useRef<"first" | "last">("first");

  const itemEls = () => [
    ...(listRef.current?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? []),
  ];

  useEffect(() => {
    if (!open) return;
    const els = itemEls();
    (focusOnOpen.current === "last" ? els.at(-1) : els[0])?.focus();
    const onPointer = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!listRef.current?.contains(target) && !buttonRef.current?.contains(target)) {
        setOpen(false);
      }
    };
    document.addEventListener("pointerdown", onPointer);
    return () => document.removeEventListener("pointerdown", onPointer);
  }, [open]);

  const close = (returnFocus = true) => {
    setOpen(false);
    if (returnFocus) buttonRef.current?.focus();
  };

  const onButtonKey = (event: KeyboardEvent<HTMLButtonElement>) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      focusOnOpen.current = event.key === "ArrowUp" ? "last" : "first";
      setOpen(true);
    }
  };

  const onMenuKey = (event: KeyboardEvent<HTMLUListElement>) => {
    const els = itemEls();
    const at = els.indexOf(document.activeElement as HTMLElement);
    const move = (i: number) => {
      event.preventDefault();
      els[(i + els.length) % els.length]?.focus();
    };
    if (event.key === "ArrowDown") move(at + 1);
    else if (event.key === "ArrowUp") move(at - 1);
    else if (event.key === "Home") move(0);
    else if (event.key === "End") move(els.length - 1);
    else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close();
    } else if (event.key === "Tab") close(false);
  };

  return (
    <div className={className ? `menu ${className}` : "menu"} data-align={align}>
      <button
        ref={buttonRef}
        type="button"
        className="icon-btn menu-button"
        aria-label={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => {
          focusOnOpen.current = "first";
          setOpen((v) => !v);
        }}
        onKeyDown={onButtonKey}
      >
        {icon}
      </button>
      {open ? (
        <ul
          ref={listRef}
          id={menuId}
          className="menu-list"
          role="menu"
          aria-label={label}
          onKeyDown={onMenuKey}
        >
          {items.map((item) => (
            <li key={item.label} role="none">
              <button
                type="button"
                role="menuitem"
                tabIndex={-1}
                className="menu-item"
                data-tone={item.tone}
                onClick={() => {
                  close();
                  item.onSelect();
                }}
              >
                {item.label}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
