import { useEffect, useRef, useState } from "react";
import { PHOTO_ACCEPT } from "~/schemas/photos";

/**
 * The selfie of photo verification: from the camera (getUserMedia, front camera) when the browser
 * has one and the member allows it, or from a file. A photo taken is put into the form's file
 * input, so the form posts the same either way (and works as a plain upload before hydration).
 * The camera is on only while the member is taking the selfie: taking it, or choosing a photo
 * instead, turns it off.
 */
export function SelfieCapture() {
  const video = useRef<HTMLVideoElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const [stream, setStream] = useState<MediaStream | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [hasCamera, setHasCamera] = useState(false);
  // The camera's first frame has arrived: before it there is nothing to take.
  const [ready, setReady] = useState(false);

  useEffect(() => setHasCamera(Boolean(navigator.mediaDevices?.getUserMedia)), []);
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
    } catch {
      if (mine === attempt.current) {
        setProblem("The camera could not be opened. You can choose a photo instead.");
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
      ) : hasCamera ? (
        <button type="button" className="btn btn-secondary" onClick={start}>
          {preview ? "Take it again" : "Use the camera"}
        </button>
      ) : null}
      {preview ? <img src={preview} alt="Your selfie" className="selfie-preview" /> : null}
      {problem ? (
        <p className="alert alert-warning" role="status">
          {problem}
        </p>
      ) : null}
      <label htmlFor="selfie-file">Or choose a photo</label>
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
