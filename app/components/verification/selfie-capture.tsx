import { useEffect, useRef, useState } from "react";
import { PHOTO_ACCEPT } from "~/schemas/photos";
import { CAMERA_MESSAGES, type CameraProblem } from "~/schemas/verification";

/** Why getUserMedia failed, by the error's name (the names browsers use, old ones included). */
function cameraProblem(error: unknown): CameraProblem {
  const name = error instanceof Error || error instanceof DOMException ? error.name : "";
  if (["NotAllowedError", "SecurityError", "PermissionDeniedError"].includes(name)) {
    return "refused";
  }
  if (["NotFoundError", "OverconstrainedError", "DevicesNotFoundError"].includes(name)) {
    return "missing";
  }
  if (["NotReadableError", "TrackStartError", "AbortError"].includes(name)) return "busy";
  return "failed";
}

/**
 * The selfie of photo verification: from the camera (getUserMedia, front camera) when the browser
 * has one and the member allows it, or from a file. A photo taken is put into the form's file
 * input, so the form posts the same either way (and works as a plain upload before hydration).
 * The camera is on only while the member is taking the selfie: taking it, or choosing a photo
 * instead, turns it off.
 *
 * A camera that cannot be used is said in plain words (CAMERA_MESSAGES) and the file input takes
 * its place: refused at the browser's prompt, or turned off for the site before (the Permissions
 * API says so on load, and again when the member changes it), the camera button goes and the
 * file input takes the focus; no camera, or one that would not start, leaves the button to try
 * again.
 */
export function SelfieCapture() {
  const video = useRef<HTMLVideoElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const [stream, setStream] = useState<MediaStream | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [problem, setProblem] = useState<CameraProblem | null>(null);
  const [hasCamera, setHasCamera] = useState(false);
  // The camera's first frame has arrived: before it there is nothing to take.
  const [ready, setReady] = useState(false);
  // The browser refuses the camera to this site (its permission is "denied").
  const [refused, setRefused] = useState(false);

  useEffect(() => {
    setHasCamera(Boolean(navigator.mediaDevices?.getUserMedia));
    // Where the Permissions API knows the camera: a refusal shows at once, and a change of the
    // site's setting while the page is open brings the camera back (or takes it away).
    let status: PermissionStatus | null = null;
    let left = false;
    const follow = () => {
      if (!status) return;
      const denied = status.state === "denied";
      setRefused(denied);
      if (!denied) setProblem((p) => (p === "refused" ? null : p));
    };
    navigator.permissions
      ?.query({ name: "camera" as PermissionName })
      .then((found) => {
        if (left) return;
        status = found;
        follow();
        found.addEventListener("change", follow);
      })
      .catch(() => {
        // A browser that cannot tell about the camera: the request itself will.
      });
    return () => {
      left = true;
      status?.removeEventListener("change", follow);
    };
  }, []);
  useEffect(() => {
    if (video.current && stream) video.current.srcObject = stream;
    return () => stream?.getTracks().forEach((t) => t.stop());
  }, [stream]);
  useEffect(() => () => void (preview && URL.revokeObjectURL(preview)), [preview]);

  // The request for the camera that is still wanted: when a photo is chosen, or the page left,
  // while the browser is still asking the member, the camera that opens after it is stopped.
  const attempt = useRef(0);
  useEffect(
    () => () => {
      attempt.current += 1;
    },
    [],
  );

  async function start() {
    const mine = ++attempt.current;
    setProblem(null);
    setReady(false);
    try {
      const opened = await navigator.mediaDevices.getUserMedia({
        video: { facingMode: "user" },
        audio: false,
      });
      if (mine === attempt.current) setStream(opened);
      else opened.getTracks().forEach((t) => t.stop());
    } catch (error) {
      if (mine !== attempt.current) return;
      const found = cameraProblem(error);
      setProblem(found);
      if (found === "refused") {
        // Asking again would be refused again: the file input takes the button's place (and
        // the focus, which was on the button).
        setRefused(true);
        input.current?.focus();
      }
    }
  }

  function take() {
    const v = video.current;
    if (!v || !v.videoWidth) return;
    const canvas = document.createElement("canvas");
    canvas.width = v.videoWidth;
    canvas.height = v.videoHeight;
    canvas.getContext("2d")?.drawImage(v, 0, 0);
    canvas.toBlob(
      (blob) => {
        if (!blob || !input.current) return;
        const file = new File([blob], "selfie.jpg", { type: "image/jpeg" });
        const files = new DataTransfer();
        files.items.add(file);
        input.current.files = files.files;
        setPreview(URL.createObjectURL(file));
        setStream(null);
      },
      "image/jpeg",
      0.9,
    );
  }

  const canUseCamera = hasCamera && !refused;
  // A refusal the browser holds is said even before the member asks for the camera.
  const shown: CameraProblem | null = refused ? "refused" : problem;

  return (
    <div className="selfie-capture stack">
      {stream ? (
        <>
          <video
            ref={video}
            autoPlay
            playsInline
            muted
            className="selfie-video"
            aria-label="Camera"
            onLoadedData={() => setReady(true)}
          />
          <button type="button" className="btn btn-primary" onClick={take} disabled={!ready}>
            Take selfie
          </button>
        </>
      ) : canUseCamera ? (
        <button type="button" className="btn btn-secondary" onClick={start}>
          {preview ? "Take it again" : "Use the camera"}
        </button>
      ) : null}
      {preview ? <img src={preview} alt="Your selfie" className="selfie-preview" /> : null}
      {shown ? (
        <p className="alert alert-warning" role="status" data-testid="camera-problem">
          {CAMERA_MESSAGES[shown]}
        </p>
      ) : null}
      <label htmlFor="selfie-file">
        {canUseCamera ? "Or choose a photo" : "Choose a photo of yourself"}
      </label>
      <input
        ref={input}
        id="selfie-file"
        type="file"
        name="selfie"
        accept={PHOTO_ACCEPT}
        capture="user"
        onChange={(e) => {
          const file = e.target.files?.[0];
          setPreview(file ? URL.createObjectURL(file) : null);
          // A photo chosen instead: the camera goes off, and "Take selfie" cannot replace it.
          attempt.current += 1;
          setStream(null);
        }}
      />
    </div>
  );
}
