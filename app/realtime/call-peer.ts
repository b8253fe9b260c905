/**
 * One call's WebRTC side in the browser (docs/api.md "Calls"): the member's microphone (and
 * camera), a peer connection with the ICE servers the server gives, and the offer, answer and
 * candidates exchanged through the conversation's room. Media goes peer to peer; what the other
 * browser learns is what WebRTC needs (its candidates), never a member's number or address book.
 */

export type CallSignal = "offer" | "answer" | "candidate";

export interface CallPeerOptions {
  iceServers: RTCIceServer[];
  /** `relay` when the server names a TURN relay: no candidate carries this browser's address. */
  iceTransportPolicy: RTCIceTransportPolicy;
  video: boolean;
  /** Sends a signalling frame to the other member through the room. */
  signal(action: CallSignal, data: unknown): void;
  /** The peer connection's state: "connected" once media flows. */
  onState(state: RTCPeerConnectionState): void;
  /** The other member's media. */
  onRemote(stream: MediaStream): void;
}

const isDescription = (data: unknown): data is RTCSessionDescriptionInit =>
  typeof data === "object" &&
  data !== null &&
  typeof (data as { sdp?: unknown }).sdp === "string" &&
  ((data as { type?: unknown }).type === "offer" || (data as { type?: unknown }).type === "answer");

const isCandidate = (data: unknown): data is RTCIceCandidateInit =>
  typeof data === "object" &&
  data !== null &&
  typeof (data as { candidate?: unknown }).candidate === "string";

export class CallPeer {
  readonly connection: RTCPeerConnection;
  local: MediaStream | null = null;
  private readonly remote = new MediaStream();
  /** Candidates that came before the other side's description. */
  private pending: RTCIceCandidateInit[] = [];
  private closed = false;

  constructor(private readonly options: CallPeerOptions) {
    this.connection = new RTCPeerConnection({
      iceServers: options.iceServers,
      iceTransportPolicy: options.iceTransportPolicy,
    });
    this.connection.onicecandidate = (event) => {
      if (event.candidate) options.signal("candidate", event.candidate.toJSON());
    };
    this.connection.ontrack = (event) => {
      this.remote.addTrack(event.track);
      options.onRemote(this.remote);
    };
    this.connection.onconnectionstatechange = () => {
      if (!this.closed) options.onState(this.connection.connectionState);
    };
  }

  /** Asks for the microphone (and camera) and adds them to the call. */
  async start(): Promise<MediaStream> {
    this.local = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: true, noiseSuppression: true },
      video: this.options.video ? { width: { ideal: 640 }, height: { ideal: 480 } } : false,
    });
    for (const track of this.local.getTracks()) this.connection.addTrack(track, this.local);
    return this.local;
  }

  /** The caller's side, once the other member accepted: the offer. */
  async offer() {
    const offer = await this.connection.createOffer();
    await this.connection.setLocalDescription(offer);
    this.options.signal("offer", { type: offer.type, sdp: offer.sdp });
  }

  /** A signalling frame from the other member. Malformed data is ignored. */
  async receive(action: string, data: unknown) {
    if (this.closed) return;
    if (action === "offer" && isDescription(data) && data.type === "offer") {
      await this.connection.setRemoteDescription(data);
      await this.flushCandidates();
      const answer = await this.connection.createAnswer();
      await this.connection.setLocalDescription(answer);
      this.options.signal("answer", { type: answer.type, sdp: answer.sdp });
    } else if (action === "answer" && isDescription(data) && data.type === "answer") {
      await this.connection.setRemoteDescription(data);
      await this.flushCandidates();
    } else if (action === "candidate" && isCandidate(data)) {
      if (this.connection.remoteDescription) await this.addCandidate(data);
      else this.pending.push(data);
    }
  }

  setMuted(muted: boolean) {
    for (const track of this.local?.getAudioTracks() ?? []) track.enabled = !muted;
  }

  setCameraOff(off: boolean) {
    for (const track of this.local?.getVideoTracks() ?? []) track.enabled = !off;
  }

  /** Hangs up here: the camera and microphone are released at once. */
  close() {
    this.closed = true;
    for (const track of this.local?.getTracks() ?? []) track.stop();
    this.connection.close();
  }

  private async flushCandidates() {
    const pending = this.pending;
    this.pending = [];
    for (const candidate of pending) await this.addCandidate(candidate);
  }

  private async addCandidate(candidate: RTCIceCandidateInit) {
    try {
      await this.connection.addIceCandidate(candidate);
    } catch {
      // A candidate this browser cannot use: the others may.
    }
  }
}
