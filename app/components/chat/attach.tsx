import { useEffect, useRef, useState } from "react";
import { Icon } from "~/components/icons";
import { preparePhoto } from "~/lib/image-resize";
import { formatClock } from "~/lib/voice-note";
import {
  ATTACHMENT_TYPE,
  CHAT_PHOTO_MAX_BYTES,
  CHAT_PHOTO_TOO_LARGE,
  VOICE_MAX_MS,
  VOICE_RECORDING_TYPES,
} from "~/schemas/chat";
import { PHOTO_ACCEPT } from "~/schemas/photos";
import { sendAttachmentAtom } from "~/state/chat-actions";
import { useSetAtom } from "~/state/jotai";

/**
 * The composer's photo and voice-note controls (docs/api.md "Chat: reactions, delivery, photos,
 * voice, calls"): a photo from the camera or the library, previewed with "View once" before it
 * goes; a voice note recorded in the browser (MediaRecorder: Opus in WebM or Ogg, AAC in MP4 on
 * Safari), stopped at a minute.
 */

/** Why a photo or a recording could not be used, over the composer until dismissed. */
function Problem({ text, onDismiss }: { text: string; onDismiss: () => void }) {
  return (
    <p className="composer-problem small" role="alert">
      {text}
      <button type="button" className="icon-btn" aria-label="Dismiss" onClick={onDismiss}>
        ×
      </button>
    </p>
  );
}

export function PhotoButton({ disabled, onSent }: { disabled: boolean; onSent?: () => void }) {
  const send = useSetAtom(sendAttachmentAtom);
  const input = useRef<HTMLInputElement>(null);
  const [chosen, setChosen] = useState<{ file: File; preview: string } | null>(null);
  const [viewOnce, setViewOnce] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const forget = () => {
    if (chosen) URL.revokeObjectURL(chosen.preview);
    setChosen(null);
    setViewOnce(false);
  };

  return (
    <>
      <input
        ref={input}
        type="file"
        accept={PHOTO_ACCEPT}
        className="sr-only"
        tabIndex={-1}
        aria-hidden="true"
        data-testid="chat-photo-input"
        onChange={async (e) => {
          const file = e.target.files?.[0];
          e.target.value = "";
          if (!file) return;
          setProblem(null);
          try {
            // Scaled and re-encoded like profile photos: a phone's picture fits under 4MB and
            // leaves its GPS position behind.
            const prepared = await preparePhoto(file);
            if (prepared.type !== "jpeg" && prepared.type !== "png" && prepared.type !== "webp") {
              setProblem(ATTACHMENT_TYPE);
              return;
            }
            if (prepared.file.size >= CHAT_PHOTO_MAX_BYTES) {
              setProblem(CHAT_PHOTO_TOO_LARGE);
              return;
            }
            setChosen({ file: prepared.file, preview: URL.createObjectURL(prepared.file) });
          } catch {
            setProblem(ATTACHMENT_TYPE);
          }
        }}
      />
      <button
        type="button"
        className="icon-btn"
        aria-label="Send a photo"
        disabled={disabled}
        onClick={() => input.current?.click()}
      >
        <Icon name="image" />
      </button>
      {problem ? <Problem text={problem} onDismiss={() => setProblem(null)} /> : null}
      {chosen ? (
        <div className="attach-sheet" role="dialog" aria-label="Send this photo?">
          <img src={chosen.preview} alt="The photo to send" className="attach-preview" />
          <label className="attach-once">
            <input
              type="checkbox"
              checked={viewOnce}
              onChange={(e) => setViewOnce(e.target.checked)}
            />{" "}
            View once
          </label>
          <div className="attach-actions">
            <button type="button" className="btn btn-ghost btn-sm" onClick={forget}>
              Cancel
            </button>
            <button
              type="button"
              className="btn btn-primary btn-sm"
              onClick={() => {
                void send({ file: chosen.file, name: chosen.file.name, kind: "photo", viewOnce });
                forget();
                onSent?.();
              }}
            >
              Send photo
            </button>
          </div>
        </div>
      ) : null}
    </>
  );
}

/** The recorder's best MIME type in this browser, or null when it records none of them. */
function recordingType(): string | null {
  if (typeof MediaRecorder === "undefined") return null;
  return VOICE_RECORDING_TYPES.find((t) => MediaRecorder.isTypeSupported(t)) ?? null;
}

const extension = (type: string) =>
  type.startsWith("audio/ogg") ? "ogg" : type.startsWith("audio/mp4") ? "m4a" : "webm";

export function VoiceButton({ disabled, onSent }: { disabled: boolean; onSent?: () => void }) {
  const send = useSetAtom(sendAttachmentAtom);
  const [recording, setRecording] = useState<{
    recorder: MediaRecorder;
    stream: MediaStream;
    startedAt: number;
  } | null>(null);
  const [elapsed, setElapsed] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);
  const chunks = useRef<Blob[]>([]);
  const stoppedAt = useRef<number | null>(null);

  useEffect(() => {
    if (!recording) return;
    const timer = setInterval(() => {
      const ms = Date.now() - recording.startedAt;
      setElapsed(ms);
      // A voice note is at most a minute: the recorder stops there, and waits for Send.
      if (ms >= VOICE_MAX_MS && recording.recorder.state === "recording") {
        stoppedAt.current = Date.now();
        recording.recorder.stop();
      }
    }, 200);
    return () => clearInterval(timer);
  }, [recording]);

  const stopTracks = (stream: MediaStream) => stream.getTracks().forEach((t) => t.stop());

  const start = async () => {
    setProblem(null);
    const type = recordingType();
    if (!type || !navigator.mediaDevices?.getUserMedia) {
      setProblem("This browser cannot record voice notes.");
      return;
    }
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch {
      setProblem("Allow the microphone to record a voice note.");
      return;
    }
    const recorder = new MediaRecorder(stream, { mimeType: type, audioBitsPerSecond: 32_000 });
    chunks.current = [];
    stoppedAt.current = null;
    recorder.ondataavailable = (e) => {
      if (e.data.size > 0) chunks.current.push(e.data);
    };
    recorder.start(250);
    setElapsed(0);
    setRecording({ recorder, stream, startedAt: Date.now() });
  };

  const finish = (keep: boolean) => {
    const current = recording;
    if (!current) return;
    setRecording(null);
    const done = () => {
      stopTracks(current.stream);
      if (!keep) return;
      const type = current.recorder.mimeType || "audio/webm";
      const file = new Blob(chunks.current, { type: type.split(";")[0] });
      const durationMs = Math.min(
        VOICE_MAX_MS,
        (stoppedAt.current ?? Date.now()) - current.startedAt,
      );
      if (durationMs < 500 || file.size === 0) return;
      void send({ file, name: `voice.${extension(type)}`, kind: "voice", durationMs });
      onSent?.();
    };
    if (current.recorder.state === "inactive") done();
    else {
      current.recorder.addEventListener("stop", done, { once: true });
      stoppedAt.current = Date.now();
      current.recorder.stop();
    }
  };

  if (recording) {
    return (
      <div className="voice-recording" role="group" aria-label="Recording a voice note">
        <span className="voice-recording-dot" aria-hidden="true" />
        <span className="voice-recording-time" data-testid="recording-time">
          {formatClock(elapsed / 1000)} / {formatClock(VOICE_MAX_MS / 1000)}
        </span>
        <button type="button" className="btn btn-ghost btn-sm" onClick={() => finish(false)}>
          Cancel
        </button>
        <button type="button" className="btn btn-primary btn-sm" onClick={() => finish(true)}>
          Send voice note
        </button>
      </div>
    );
  }
  return (
    <>
      <button
        type="button"
        className="icon-btn"
        aria-label="Record a voice note"
        disabled={disabled}
        onClick={() => void start()}
      >
        <Icon name="mic" />
      </button>
      {problem ? <Problem text={problem} onDismiss={() => setProblem(null)} /> : null}
    </>
  );
}
