import { photoAt } from "~/lib/photos";
import { useRef, useState, type DragEvent } from "react";
import { api, ApiError } from "~/lib/http";
import { preparePhoto, sniffFile } from "~/lib/image-resize";
import { checkPhotos, PHOTO_ACCEPT, PHOTO_LIMITS } from "~/schemas/photos";
import type { ProfilePhoto } from "~/schemas/profile";

interface PhotoManagerProps {
  photos: ProfilePhoto[];
  onPhotosChange(photos: ProfilePhoto[]): void;
}

type Busy = null | "preparing" | "uploading" | "saving";

function messagesOf(error: unknown): string[] {
  if (error instanceof ApiError) {
    const fields = Object.values(error.errors ?? {}).flat();
    return fields.length ? fields : [error.message];
  }
  return ["Something went wrong. Please check your connection and try again."];
}

const move = <T,>(list: T[], from: number, to: number): T[] => {
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item as T);
  return next;
};

/**
 * Upload (1 to 5 photos, checked and scaled in the browser first), reorder by dragging or with the
 * arrow buttons (the first photo is the main one), and delete (a member keeps at least one).
 * Each change is saved at once.
 */
export function PhotoManager({ photos, onPhotosChange }: PhotoManagerProps) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState<Busy>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [status, setStatus] = useState<string | null>(null);
  const [dragIndex, setDragIndex] = useState<number | null>(null);
  const [overIndex, setOverIndex] = useState<number | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const remaining = PHOTO_LIMITS.maxCount - photos.length;

  const upload = async (chosen: File[]) => {
    setErrors([]);
    setStatus(null);
    // First the rules that need no decoding: how many, and whether they are images at all.
    const sniffed = await Promise.all(
      chosen.map(async (f) => ({ size: 0, type: await sniffFile(f) })),
    );
    const early = checkPhotos(sniffed, { count: photos.length, totalBytes: 0 });
    if (early.messages.length) {
      setErrors(early.messages);
      return;
    }
    setBusy("preparing");
    try {
      const prepared = await Promise.all(chosen.map(preparePhoto));
      const check = checkPhotos(
        prepared.map((p) => ({ size: p.file.size, type: p.type })),
        { count: photos.length, totalBytes: 0 },
      );
      if (check.messages.length) {
        setErrors(check.messages);
        return;
      }
      setBusy("uploading");
      const form = new FormData();
      for (const p of prepared) form.append("photos", p.file, p.file.name);
      const res = await api<{ photos: ProfilePhoto[] }>("/my/photos", {
        method: "POST",
        body: form,
      });
      onPhotosChange(res.photos);
      setStatus(chosen.length === 1 ? "Photo added." : `${chosen.length} photos added.`);
    } catch (error) {
      setErrors(messagesOf(error));
    } finally {
      setBusy(null);
      if (inputRef.current) inputRef.current.value = "";
    }
  };

  const saveOrder = async (next: ProfilePhoto[]) => {
    const previous = photos;
    onPhotosChange(next.map((p, i) => ({ ...p, position: i })));
    setErrors([]);
    setStatus(null);
    setBusy("saving");
    try {
      const res = await api<{ photos: ProfilePhoto[] }>("/my/photos/order", {
        method: "PUT",
        body: { ids: next.map((p) => p.id) },
      });
      onPhotosChange(res.photos);
      setStatus("Photo order saved.");
    } catch (error) {
      onPhotosChange(previous);
      setErrors(messagesOf(error));
    } finally {
      setBusy(null);
    }
  };

  const remove = async (photo: ProfilePhoto) => {
    setConfirming(null);
    setErrors([]);
    setStatus(null);
    setBusy("saving");
    try {
      await api<void>(`/my/photos/${encodeURIComponent(photo.id)}`, { method: "DELETE" });
      onPhotosChange(
        photos.filter((p) => p.id !== photo.id).map((p, i) => ({ ...p, position: i })),
      );
      setStatus("Photo deleted.");
    } catch (error) {
      setErrors(messagesOf(error));
    } finally {
      setBusy(null);
    }
  };

  const onDrop = (event: DragEvent, to: number) => {
    event.preventDefault();
    const from = dragIndex;
    setDragIndex(null);
    setOverIndex(null);
    if (from === null || from === to) return;
    void saveOrder(move(photos, from, to));
  };

  return (
    <div className="photo-manager" aria-busy={busy !== null}>
      <ol className="photo-grid" aria-label="Your photos">
        {photos.map((photo, index) => (
          <li
            key={photo.id}
            className="photo-tile"
            data-dragging={dragIndex === index || undefined}
            data-over={overIndex === index && dragIndex !== index ? true : undefined}
            draggable={busy === null}
            onDragStart={(e) => {
              setDragIndex(index);
              e.dataTransfer.effectAllowed = "move";
              e.dataTransfer.setData("text/plain", photo.id);
            }}
            onDragOver={(e) => {
              e.preventDefault();
              setOverIndex(index);
            }}
            onDragLeave={() => setOverIndex(null)}
            onDragEnd={() => {
              setDragIndex(null);
              setOverIndex(null);
            }}
            onDrop={(e) => onDrop(e, index)}
          >
            <img
              src={photoAt(photo.urls, 400)}
              alt={`Photo ${index + 1}`}
              loading="lazy"
              draggable={false}
            />
            {index === 0 ? <span className="photo-badge">Main photo</span> : null}
            {confirming === photo.id ? (
              <div className="photo-confirm" role="group" aria-label="Delete this photo?">
                <p>Delete this photo?</p>
                <div>
                  <button
                    type="button"
                    className="btn btn-danger btn-sm"
                    onClick={() => void remove(photo)}
                  >
                    Delete
                  </button>
                  <button
                    type="button"
                    className="btn btn-secondary btn-sm"
                    onClick={() => setConfirming(null)}
                  >
                    Keep
                  </button>
                </div>
              </div>
            ) : (
              <div className="photo-actions">
                <button
                  type="button"
                  className="icon-btn"
                  aria-label={`Move photo ${index + 1} earlier`}
                  title="Move earlier"
                  disabled={index === 0 || busy !== null}
                  onClick={() => void saveOrder(move(photos, index, index - 1))}
                >
                  ←
                </button>
                {index > 0 ? (
                  <button
                    type="button"
                    className="icon-btn"
                    aria-label={`Make photo ${index + 1} the main photo`}
                    title="Make this your main photo"
                    disabled={busy !== null}
                    onClick={() => void saveOrder(move(photos, index, 0))}
                  >
                    ★
                  </button>
                ) : null}
                <button
                  type="button"
                  className="icon-btn"
                  aria-label={`Move photo ${index + 1} later`}
                  title="Move later"
                  disabled={index === photos.length - 1 || busy !== null}
                  onClick={() => void saveOrder(move(photos, index, index + 1))}
                >
                  →
                </button>
                <button
                  type="button"
                  className="icon-btn icon-btn-danger"
                  aria-label={`Delete photo ${index + 1}`}
                  title={
                    photos.length === 1 ? "Add another photo before deleting this one" : "Delete"
                  }
                  disabled={photos.length === 1 || busy !== null}
                  onClick={() => setConfirming(photo.id)}
                >
                  ✕
                </button>
              </div>
            )}
          </li>
        ))}
        {remaining > 0 ? (
          <li className="photo-tile photo-add">
            <label className="photo-add-label" data-busy={busy !== null || undefined}>
              <input
                ref={inputRef}
                type="file"
                name="photos"
                accept={PHOTO_ACCEPT}
                multiple
                className="sr-only"
                disabled={busy !== null}
                onChange={(e) => {
                  const files = Array.from(e.target.files ?? []);
                  if (files.length) void upload(files);
                }}
              />
              <span className="photo-add-icon" aria-hidden="true">
                {busy === "preparing" || busy === "uploading" ? "…" : "+"}
              </span>
              <span>
                {busy === "preparing"
                  ? "Preparing…"
                  : busy === "uploading"
                    ? "Uploading…"
                    : photos.length === 0
                      ? "Add photos"
                      : "Add more"}
              </span>
              <span className="muted small">{remaining} of 5 left</span>
            </label>
          </li>
        ) : null}
      </ol>
      <div aria-live="polite" className="photo-status">
        {errors.length ? (
          <div className="alert alert-error" role="alert">
            {errors.length === 1 ? (
              errors[0]
            ) : (
              <ul className="plain-list">
                {errors.map((m) => (
                  <li key={m}>{m}</li>
                ))}
              </ul>
            )}
          </div>
        ) : status ? (
          <p className="muted small">{status}</p>
        ) : null}
      </div>
      <p className="field-hint">
        Up to 5 photos: JPEG, PNG or WebP, each under 4MB. Large photos are resized before upload.
        Drag to reorder; the first is your main photo.
      </p>
    </div>
  );
}
