import { useEffect, useState, type FormEvent, type KeyboardEvent, type RefObject } from "react";
import { useLocation } from "@remix-run/react";
import { Icon } from "~/components/icons";
import { AppLink } from "~/components/link";
import { MESSAGE_MAX_LENGTH, type Gift } from "~/schemas/chat";
import { chatStateAtom, loadGiftsAtom, sendMessageAtom } from "~/state/chat-actions";
import { useAtomValue, useSetAtom } from "~/state/jotai";
import { PhotoButton, VoiceButton } from "./attach";

function GiftPicker({ onPick, onClose }: { onPick: (gift: Gift) => void; onClose: () => void }) {
  const { gifts, userCredits } = useAtomValue(chatStateAtom);
  const loadGifts = useSetAtom(loadGiftsAtom);
  // Buying credits comes back here afterwards.
  const location = useLocation();
  useEffect(() => {
    void loadGifts();
  }, [loadGifts]);
  return (
    <div className="gift-picker" role="dialog" aria-label="Send a gift">
      <div className="gift-picker-head">
        <strong>Send a gift</strong>
        <span className="muted small" data-testid="credits">
          You have {userCredits} credits
        </span>
        <button type="button" className="icon-btn" aria-label="Close gifts" onClick={onClose}>
          ×
        </button>
      </div>
      <ul className="gift-grid">
        {gifts.map((gift) => {
          const affordable = gift.price_credits <= userCredits;
          return (
            <li key={gift.id}>
              <button
                type="button"
                className="gift"
                disabled={!affordable}
                title={affordable ? undefined : "Not enough credits"}
                onClick={() => onPick(gift)}
              >
                <span className="gift-icon" aria-hidden="true">
                  {gift.icon}
                </span>
                <span>{gift.name}</span>
                <span className="muted small">{gift.price_credits} credits</span>
              </button>
            </li>
          );
        })}
      </ul>
      {gifts.some((gift) => gift.price_credits > userCredits) ? (
        <p className="muted small gift-picker-buy">
          {userCredits === 0 ? "Gifts are paid with credits. " : "Need more credits? "}
          <AppLink
            to={`/my/credits?return_to=${encodeURIComponent(`${location.pathname}${location.search}`)}`}
            className="btn btn-sm btn-primary"
          >
            Buy credits
          </AppLink>
        </p>
      ) : null}
    </div>
  );
}

export function Composer({
  disabled,
  onTyping,
  text,
  setText,
  inputRef,
  onSent,
}: {
  disabled: boolean;
  onTyping: () => void;
  /** The draft, kept by the thread so that a suggested first line can fill it. */
  text: string;
  setText: (text: string) => void;
  inputRef: RefObject<HTMLTextAreaElement>;
  /** After a message or gift is handed to the room. */
  onSent?: () => void;
}) {
  const send = useSetAtom(sendMessageAtom);
  const [gifts, setGifts] = useState(false);
  const remaining = MESSAGE_MAX_LENGTH - text.length;

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (!text.trim() || remaining < 0 || disabled) return;
    void send({ text });
    setText("");
    onSent?.();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) submit(event);
  };

  return (
    <form className="composer" onSubmit={submit}>
      {gifts ? (
        <GiftPicker
          onClose={() => setGifts(false)}
          onPick={(gift) => {
            setGifts(false);
            void send({ text, gift });
            setText("");
            onSent?.();
          }}
        />
      ) : null}
      <button
        type="button"
        className="icon-btn"
        aria-label="Send a gift"
        aria-expanded={gifts}
        disabled={disabled}
        onClick={() => setGifts((v) => !v)}
      >
        <Icon name="gift" />
      </button>
      <PhotoButton disabled={disabled} onSent={onSent} />
      {text ? null : <VoiceButton disabled={disabled} onSent={onSent} />}
      <label className="sr-only" htmlFor="composer-text">
        Message
      </label>
      <textarea
        ref={inputRef}
        id="composer-text"
        className="input composer-input"
        rows={1}
        placeholder={disabled ? "You can no longer message this member" : "Message…"}
        value={text}
        disabled={disabled}
        maxLength={MESSAGE_MAX_LENGTH + 100}
        aria-invalid={remaining < 0 ? true : undefined}
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value) onTyping();
        }}
        onKeyDown={onKeyDown}
      />
      {remaining < 200 ? (
        <span className="composer-count small" data-over={remaining < 0 ? "true" : undefined}>
          {remaining}
        </span>
      ) : null}
      <button
        type="submit"
        className="btn btn-primary composer-send"
        disabled={disabled || !text.trim() || remaining < 0}
      >
        Send
      </button>
    </form>
  );
}
