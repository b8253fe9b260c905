import { useEffect, useRef, useState } from "react";
import type { AttachmentView } from "~/realtime/chat";
import { openViewOnceAtom } from "~/state/chat-actions";
import { useSetAtom } from "~/state/jotai";
import { formatClock, PLAYBACK_SPEEDS, nextSpeed, waveformBars } from "~/lib/voice-note";

/**
 * A message's photo or voice note in its bubble (docs/api.md "Chat: reactions, delivery, photos,
 * voice, calls"). The other member's photo is blurred until tapped; a view-once photo opens in a
 * viewer, once, and is gone for both after; a voice note plays with its waveform and a speed.
 */
export function AttachmentBubble({
  messageId,
  attachment,
  mine,
}: {
  messageId: string;
  attachment: AttachmentView;
  mine: boolean;
}) {
  if (attachment.kind === "voice") return <VoiceNote attachment={attachment} mine={mine} />;
  if (attachment.view_once) {
    return <ViewOncePhoto messageId={messageId} attachment={attachment} mine={mine} />;
  }
  return <Photo attachment={attachment} mine={mine} />;
}

function photoBox(attachment: AttachmentView) {
  const width = attachment.width ?? 4;
  const height = attachment.height ?? 3;
  return { aspectRatio: `${width} / ${height}` };
}

function Photo({ attachment, mine }: { attachment: AttachmentView; mine: boolean }) {
  // The other member's photo is shown blurred until tapped: nobody sees a photo they did not ask
  // to. Mine are shown as they are.
  const [revealed, setRevealed] = useState(mine);
  if (!attachment.url) return null;
  const image = (
    <img
      className="attachment-photo"
      src={attachment.url}
      alt={mine ? "Photo you sent" : "Photo"}
      width={attachment.width}
      height={attachment.height}
      loading="lazy"
      decoding="async"
      style={photoBox(attachment)}
      data-blurred={revealed ? undefined : "true"}
    />
  );
  if (revealed) return image;
  return (
    <button
      type="button"
      className="attachment-reveal"
      aria-label="Show photo"
      onClick={() => setRevealed(true)}
      data-testid="reveal-photo"
    >
      {image}
      <span className="attachment-reveal-label">Tap to view</span>
    </button>
  );
}

function ViewOncePhoto({
  messageId,
  attachment,
  mine,
}: {
  messageId: string;
  attachment: AttachmentView;
  mine: boolean;
}) {
  const openViewOnce = useSetAtom(openViewOnceAtom);
  const [viewing, setViewing] = useState<string | null>(null);
  const [opening, setOpening] = useState(false);
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (viewing) close.current?.focus();
  }, [viewing]);
  const shut = () => {
    if (viewing) URL.revokeObjectURL(viewing);
    setViewing(null);
  };
  const opened = attachment.opened_at !== null || attachment.url === null;
  if (mine) {
    return (
      <p className="attachment-once" data-testid="view-once">
        <span aria-hidden="true">①</span> View once photo · {opened ? "Opened" : "Not opened yet"}
      </p>
    );
  }
  return (
    <>
      {opened && !viewing ? (
        <p className="attachment-once" data-testid="view-once">
          <span aria-hidden="true">①</span> Photo opened
        </p>
      ) : (
        <button
          type="button"
          className="btn btn-sm attachment-once-open"
          disabled={opening || !!viewing}
          onClick={async () => {
            setOpening(true);
            setViewing(await openViewOnce(messageId));
            setOpening(false);
          }}
        >
          <span aria-hidden="true">①</span> {opening ? "Opening…" : "View once photo · tap to open"}
        </button>
      )}
      {viewing ? (
        <div
          className="photo-viewer"
          role="dialog"
          aria-modal="true"
          aria-label="View once photo"
          onKeyDown={(e) => {
            if (e.key === "Escape") shut();
          }}
        >
          <img src={viewing} alt="View once photo" />
          <p className="photo-viewer-note">This photo is gone once you close it.</p>
          <button ref={close} type="button" className="btn btn-primary" onClick={shut}>
            Close
          </button>
        </div>
      ) : null}
    </>
  );
}

function VoiceNote({ attachment, mine }: { attachment: AttachmentView; mine: boolean }) {
  const audio = useRef<HTMLAudioElement>(null);
  const [playing, setPlaying] = useState(false);
  const [position, setPosition] = useState(0);
  const [speed, setSpeed] = useState<(typeof PLAYBACK_SPEEDS)[number]>(1);
  const [bars, setBars] = useState<number[] | null>(null);
  const duration = (attachment.duration_ms ?? 0) / 1000;

  // The waveform, from the decoded sound (a voice note is at most 1 MB).
  useEffect(() => {
    const url = attachment.url;
    if (!url || typeof AudioContext === "undefined") return;
    let cancelled = false;
    const context = new AudioContext();
    fetch(url, { credentials: "same-origin" })
      .then((res) => (res.ok ? res.arrayBuffer() : Promise.reject(new Error(String(res.status)))))
      .then((bytes) => context.decodeAudioData(bytes))
      .then((decoded) => {
        if (!cancelled) setBars(waveformBars(decoded.getChannelData(0)));
      })
      .catch(() => {
        // Without a waveform the note still plays.
      })
      .finally(() => void context.close());
    return () => {
      cancelled = true;
    };
  }, [attachment.url]);

  if (!attachment.url) return null;
  const progress = duration > 0 ? Math.min(1, position / duration) : 0;
  const shown = bars ?? Array.from({ length: 32 }, () => 0.15);
  return (
    <div className="voice-note" data-testid="voice-note">
      <audio
        ref={audio}
        src={attachment.url}
        preload="metadata"
        onPlay={() => setPlaying(true)}
        onPause={() => setPlaying(false)}
        onEnded={() => {
          setPlaying(false);
          setPosition(0);
        }}
        onTimeUpdate={(e) => setPosition(e.currentTarget.currentTime)}
      />
      <button
        type="button"
        className="voice-play"
        aria-label={playing ? "Pause voice note" : "Play voice note"}
        onClick={() => {
          const el = audio.current;
          if (!el) return;
          if (el.paused) {
            el.playbackRate = speed;
            void el.play();
          } else {
            el.pause();
          }
        }}
      >
        <span aria-hidden="true">{playing ? "❚❚" : "▶"}</span>
      </button>
      <span
        className="voice-wave"
        role="img"
        aria-label={`${mine ? "Your voice note" : "Voice note"}, ${formatClock(duration)}`}
      >
        {shown.map((h, i) => (
          <span
            key={i}
            className="voice-bar"
            data-played={i / shown.length < progress ? "true" : undefined}
            style={{ height: `${Math.round(15 + h * 85)}%` }}
          />
        ))}
      </span>
      <span className="voice-time small" data-testid="voice-time">
        {formatClock(playing || position > 0 ? position : duration)}
      </span>
      <button
        type="button"
        className="voice-speed small"
        aria-label={`Playback speed ${speed}×`}
        onClick={() => {
          const next = nextSpeed(speed);
          setSpeed(next);
          if (audio.current) audio.current.playbackRate = next;
        }}
      >
        {speed}×
      </button>
    </div>
  );
}
