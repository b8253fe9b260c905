import { useCallback, useEffect, useRef, useState } from "react";
import { Icon } from "~/components/icons";
import { api } from "~/lib/http";
import { formatClock } from "~/lib/voice-note";
import { CallPeer } from "~/realtime/call-peer";
import type { CallClientFrame, ChatServerFrame } from "~/realtime/chat";
import {
  CALL_END_TEXT,
  CALL_RING_MS,
  callAnswered,
  callConnected,
  callDismissed,
  callEnded,
  callFrameReceived,
  callPlaced,
  callRefused,
  idleCall,
  type CallState,
} from "~/state/call";
import { newClientId } from "~/state/chat-transport";

type CallFrame = Extract<ChatServerFrame, { type: "call" | "call_error" }>;

/** How long the notice of an ended call stays. */
const ENDED_NOTICE_MS = 4_000;

/**
 * The open conversation's call (docs/api.md "Calls"): places and answers calls through the room
 * (`send`), runs WebRTC (app/realtime/call-peer.ts) and the pure transitions of app/state/call.ts.
 * The thread routes the room's call frames to `onFrame`.
 */
export function useCall({
  me,
  send,
}: {
  me: string;
  send: (frame: Omit<CallClientFrame, "type">) => boolean;
}) {
  const [state, setState] = useState<CallState>(idleCall);
  // The call as of now: every change goes through `apply`, which keeps it and renders it (a frame
  // and a connection change in the same tick each see the other's result).
  const current = useRef(state);
  const apply = useCallback((change: (s: CallState) => CallState) => {
    const next = change(current.current);
    current.current = next;
    setState(next);
    return next;
  }, []);
  const [local, setLocal] = useState<MediaStream | null>(null);
  const [remote, setRemote] = useState<MediaStream | null>(null);
  const [connection, setConnection] = useState<RTCPeerConnectionState | "new">("new");
  const peer = useRef<CallPeer | null>(null);
  // Signalling that came before this side's peer was ready (an offer while the camera starts).
  const early = useRef<{ action: string; data: unknown }[]>([]);

  const release = useCallback(() => {
    peer.current?.close();
    peer.current = null;
    early.current = [];
    setLocal(null);
    setRemote(null);
    setConnection("new");
  }, []);

  const makePeer = useCallback(
    async (callId: string, video: boolean) => {
      const ice = await api<{
        ice_servers: RTCIceServer[];
        ice_transport_policy: RTCIceTransportPolicy;
      }>("/chat/ice-servers");
      const made = new CallPeer({
        iceServers: ice.ice_servers,
        iceTransportPolicy: ice.ice_transport_policy,
        video,
        signal: (action, data) => void send({ call_id: callId, action, data }),
        onState: (s) => {
          setConnection(s);
          if (s === "connected") apply((c) => callConnected(c, Date.now()));
          if (s === "failed") {
            send({ call_id: callId, action: "end" });
            release();
            apply((c) => callEnded(c, "failed"));
          }
        },
        onRemote: (stream) => setRemote(stream),
      });
      peer.current = made;
      setLocal(await made.start());
      for (const signal of early.current.splice(0)) await made.receive(signal.action, signal.data);
      return made;
    },
    [apply, release, send],
  );

  /** Calls the other member (voice, or video). */
  const place = useCallback(
    async (video: boolean) => {
      if (current.current.phase !== "idle" && current.current.phase !== "ended") return;
      const callId = newClientId();
      apply((s) => callPlaced(callDismissed(s), { callId, video }));
      try {
        // The camera and microphone first: the other member is rung only once this side can talk.
        await makePeer(callId, video);
      } catch {
        release();
        apply((s) => callEnded(s, "failed"));
        return;
      }
      // Hung up while the camera started: nothing rings.
      const now: CallState = current.current;
      if (now.callId !== callId || now.phase !== "outgoing") return;
      if (!send({ call_id: callId, action: "ring", data: { video } })) {
        release();
        apply((s) => callEnded(s, "failed"));
      }
    },
    [apply, makePeer, release, send],
  );

  const answer = useCallback(async () => {
    const s = current.current;
    if (s.phase !== "incoming" || !s.callId) return;
    apply(callAnswered);
    try {
      await makePeer(s.callId, s.video);
    } catch {
      send({ call_id: s.callId, action: "decline" });
      release();
      apply((c) => callEnded(c, "failed"));
      return;
    }
    send({ call_id: s.callId, action: "accept" });
  }, [apply, makePeer, release, send]);

  const decline = useCallback(() => {
    const s = current.current;
    if (s.phase !== "incoming" || !s.callId) return;
    send({ call_id: s.callId, action: "decline" });
    apply((c) => callEnded(c, "declined"));
  }, [apply, send]);

  const hangUp = useCallback(() => {
    const s = current.current;
    if (!s.callId || s.phase === "idle" || s.phase === "ended") return;
    send({ call_id: s.callId, action: "end" });
    release();
    apply((c) => callEnded(c, "hung-up"));
  }, [apply, release, send]);

  const onFrame = useCallback(
    (frame: CallFrame) => {
      if (frame.type === "call_error") {
        release();
        apply((s) => callRefused(s, frame.call_id, frame.message));
        return;
      }
      const before = current.current;
      const after = apply((s) => callFrameReceived(s, frame, me));
      if (after.phase === "ended" && before.phase !== "ended") release();
      if (frame.user_id === me || frame.call_id !== after.callId) return;
      if (frame.action === "accept" && before.phase === "outgoing") void peer.current?.offer();
      if (frame.action === "offer" || frame.action === "answer" || frame.action === "candidate") {
        if (peer.current) void peer.current.receive(frame.action, frame.data);
        else early.current.push({ action: frame.action, data: frame.data });
      }
    },
    [apply, me, release],
  );

  // A ring nobody answers ends; an ended call's notice goes.
  useEffect(() => {
    if (state.phase === "outgoing") {
      const timer = setTimeout(() => {
        if (current.current.phase !== "outgoing" || !current.current.callId) return;
        send({ call_id: current.current.callId, action: "end" });
        release();
        apply((c) => callEnded(c, "no-answer"));
      }, CALL_RING_MS);
      return () => clearTimeout(timer);
    }
    if (state.phase === "ended") {
      const timer = setTimeout(() => apply(callDismissed), ENDED_NOTICE_MS);
      return () => clearTimeout(timer);
    }
  }, [state.phase, apply, release, send]);

  // Leaving the conversation hangs up.
  useEffect(
    () => () => {
      const s = current.current;
      if (s.callId && s.phase !== "idle" && s.phase !== "ended") {
        send({ call_id: s.callId, action: s.phase === "incoming" ? "decline" : "end" });
      }
      peer.current?.close();
    },
    [send],
  );

  return {
    state,
    local,
    remote,
    connection,
    place,
    answer,
    decline,
    hangUp,
    onFrame,
    setMuted: (muted: boolean) => peer.current?.setMuted(muted),
    setCameraOff: (off: boolean) => peer.current?.setCameraOff(off),
  };
}

export type CallControls = ReturnType<typeof useCall>;

function Video({
  stream,
  muted,
  className,
  label,
}: {
  stream: MediaStream | null;
  muted: boolean;
  className: string;
  label: string;
}) {
  const ref = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    if (ref.current && ref.current.srcObject !== stream) ref.current.srcObject = stream;
  }, [stream]);
  return (
    <video
      ref={ref}
      className={className}
      autoPlay
      playsInline
      muted={muted}
      aria-label={label}
      data-testid={className}
    />
  );
}

function CallClock({ since }: { since: number }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return <span data-testid="call-clock">{formatClock((now - since) / 1000)}</span>;
}

/** The call buttons of the thread's header. */
export function CallButtons({ call, disabled }: { call: CallControls; disabled: boolean }) {
  const busy = call.state.phase !== "idle" && call.state.phase !== "ended";
  return (
    <>
      <button
        type="button"
        className="icon-btn"
        aria-label="Voice call"
        title="Voice call"
        disabled={disabled || busy}
        onClick={() => void call.place(false)}
      >
        <Icon name="phone" />
      </button>
      <button
        type="button"
        className="icon-btn"
        aria-label="Video call"
        title="Video call"
        disabled={disabled || busy}
        onClick={() => void call.place(true)}
      >
        <Icon name="video" />
      </button>
    </>
  );
}

/** The call over the conversation: ringing, answering, the call itself, and how it ended. */
export function CallPanel({ call, name }: { call: CallControls; name: string }) {
  const { state } = call;
  const [muted, setMuted] = useState(false);
  const [cameraOff, setCameraOff] = useState(false);
  useEffect(() => {
    if (state.phase === "idle") {
      setMuted(false);
      setCameraOff(false);
    }
  }, [state.phase]);
  if (state.phase === "idle") return null;
  const kind = state.video ? "video call" : "voice call";
  return (
    <div
      className="call-panel"
      role={state.phase === "incoming" ? "alertdialog" : "dialog"}
      aria-label={`${kind[0]!.toUpperCase()}${kind.slice(1)} with ${name}`}
      data-phase={state.phase}
      data-call-state={call.connection}
      data-video={state.video ? "true" : undefined}
    >
      {state.phase === "incoming" ? (
        <>
          <p className="call-title">
            {name} is calling you ({kind})
          </p>
          <div className="call-actions">
            <button type="button" className="btn btn-danger" onClick={call.decline}>
              Decline
            </button>
            <button type="button" className="btn btn-primary" onClick={() => void call.answer()}>
              Accept
            </button>
          </div>
        </>
      ) : state.phase === "ended" ? (
        <p className="call-title" role="status">
          {state.error ?? CALL_END_TEXT[state.ended ?? "hung-up"]}
        </p>
      ) : (
        <>
          {state.video ? (
            <div className="call-videos">
              <Video stream={call.remote} muted={false} className="call-remote" label={name} />
              <Video stream={call.local} muted className="call-local" label="You" />
            </div>
          ) : (
            <Video stream={call.remote} muted={false} className="call-remote-audio" label={name} />
          )}
          <p className="call-title" role="status">
            {state.phase === "outgoing"
              ? `Calling ${name}…`
              : state.phase === "connecting"
                ? "Connecting…"
                : null}
            {state.phase === "connected" && state.connectedAt ? (
              <>
                {name} · <CallClock since={state.connectedAt} />
              </>
            ) : null}
          </p>
          <div className="call-actions">
            <button
              type="button"
              className="btn btn-ghost"
              aria-pressed={muted}
              onClick={() => {
                call.setMuted(!muted);
                setMuted(!muted);
              }}
            >
              {muted ? "Unmute" : "Mute"}
            </button>
            {state.video ? (
              <button
                type="button"
                className="btn btn-ghost"
                aria-pressed={cameraOff}
                onClick={() => {
                  call.setCameraOff(!cameraOff);
                  setCameraOff(!cameraOff);
                }}
              >
                {cameraOff ? "Camera on" : "Camera off"}
              </button>
            ) : null}
            <button type="button" className="btn btn-danger" onClick={call.hangUp}>
              Hang up
            </button>
          </div>
        </>
      )}
    </div>
  );
}
