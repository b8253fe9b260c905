/**
 * Chat voice notes, judged from their bytes alone: which container and codec an upload is, and how
 * long it lasts. Accepted are Opus in WebM (Chromium's and Firefox's MediaRecorder), Opus in Ogg,
 * and AAC in MP4 (Safari's MediaRecorder), audio only.
 *
 * Uploads are hostile: every size is checked against the bytes around it, every loop moves forward
 * on each turn, nesting is fixed by the code (nothing recurses), and nothing is allocated from a
 * size the file declares. Any surprise is "malformed"; nothing here throws.
 */

export type VoiceContainer = "webm" | "ogg" | "mp4";

export interface VoiceNoteInfo {
  container: VoiceContainer;
  codec: "opus" | "aac";
  /** The Content-Type to store and serve it with: "audio/webm", "audio/ogg" or "audio/mp4". */
  contentType: string;
  /** Its length, in whole milliseconds (rounded). */
  durationMs: number;
}

export type VoiceNoteProblem = "not-audio" | "wrong-codec" | "no-duration" | "malformed";

/** Longer than a day is no voice note but a corrupt or hostile header. */
const MAX_DURATION_MS = 24 * 60 * 60 * 1000;

/** A container's verdict: its codec and length in milliseconds (0 when it cannot tell). */
interface Found {
  codec: VoiceNoteInfo["codec"];
  ms: number;
}

export function inspectVoiceNote(
  bytes: Uint8Array,
): { ok: true; info: VoiceNoteInfo } | { ok: false; problem: VoiceNoteProblem } {
  try {
    const file = new Bytes(bytes);
    const container = sniff(file);
    const { codec, ms } =
      container === "webm"
        ? inspectWebm(file)
        : container === "ogg"
          ? inspectOgg(file)
          : inspectMp4(file);
    if (!Number.isFinite(ms) || ms < 0 || ms > MAX_DURATION_MS) return fail("malformed");
    const durationMs = Math.round(ms);
    if (durationMs <= 0) return fail("no-duration");
    return { ok: true, info: { container, codec, contentType: `audio/${container}`, durationMs } };
  } catch (error) {
    return { ok: false, problem: error instanceof Rejected ? error.problem : "malformed" };
  }
}

/** The container, from the file's first bytes. */
function sniff(file: Bytes): VoiceContainer {
  if (file.length >= 4 && file.u32(0) === EBML) return "webm";
  if (file.length >= 4 && file.ascii(0, 4) === "OggS") return "ogg";
  if (file.length >= 8 && file.ascii(4, 4) === "ftyp") return "mp4";
  return fail("not-audio");
}

class Rejected extends Error {
  constructor(readonly problem: VoiceNoteProblem) {
    super(problem);
  }
}

function fail(problem: VoiceNoteProblem): never {
  throw new Rejected(problem);
}

/** Bounds-checked big- or little-endian reads: past `end` (or the file) is malformed. */
class Bytes {
  private readonly view: DataView;
  readonly length: number;

  constructor(bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.length = bytes.byteLength;
  }

  private at(pos: number, size: number, end: number) {
    if (!(pos >= 0 && pos + size <= Math.min(end, this.length))) fail("malformed");
    return pos;
  }

  u8(pos: number, end = this.length) {
    return this.view.getUint8(this.at(pos, 1, end));
  }

  u16(pos: number, end = this.length, little = false) {
    return this.view.getUint16(this.at(pos, 2, end), little);
  }

  u32(pos: number, end = this.length, little = false) {
    return this.view.getUint32(this.at(pos, 4, end), little);
  }

  /** Big-endian; exact below 2^53, and larger values are absurd anyway and rejected as such. */
  u64(pos: number, end = this.length) {
    return this.u32(pos, end) * 2 ** 32 + this.u32(pos + 4, end);
  }

  float(pos: number, size: number, end = this.length) {
    if (size === 0) return 0;
    if (size === 4) return this.view.getFloat32(this.at(pos, 4, end));
    if (size === 8) return this.view.getFloat64(this.at(pos, 8, end));
    return fail("malformed");
  }

  ascii(pos: number, size: number, end = this.length) {
    this.at(pos, size, end);
    let text = "";
    for (let i = 0; i < size; i++) text += String.fromCharCode(this.view.getUint8(pos + i));
    return text;
  }
}

/** An Opus packet's length in ms from its TOC byte and the next (RFC 6716 §3.1); 0 if unknown. */
function opusPacketMs(toc: number, countByte: number | undefined) {
  const config = toc >> 3;
  const frameMs =
    config < 12
      ? [10, 20, 40, 60][config % 4]!
      : config < 16
        ? [10, 20][config % 2]!
        : [2.5, 5, 10, 20][config % 4]!;
  const code = toc & 3;
  const frames = code === 0 ? 1 : code < 3 ? 2 : (countByte ?? 0) & 0x3f;
  const ms = frames * frameMs;
  return ms <= 120 ? ms : 0;
}

// WebM: EBML elements of a one-byte-marked ID and size; Chromium writes its Segment and Clusters
// with an unknown size (all ones) and no Duration, so the length is read from the blocks instead.

const EBML = 0x1a45dfa3;
const DOC_TYPE = 0x4282;
const SEGMENT = 0x18538067;
const INFO = 0x1549a966;
const TIMECODE_SCALE = 0x2ad7b1;
const DURATION = 0x4489;
const TRACKS = 0x1654ae6b;
const TRACK_ENTRY = 0xae;
const TRACK_TYPE = 0x83;
const CODEC_ID = 0x86;
const CLUSTER = 0x1f43b675;
const TIMECODE = 0xe7;
const SIMPLE_BLOCK = 0xa3;
const BLOCK_GROUP = 0xa0;
const BLOCK = 0xa1;
const BLOCK_DURATION = 0x9b;

/** IDs that end a Cluster of unknown size: the Segment's other children, or a next file. */
const SEGMENT_LEVEL = new Set([
  0x114d9b74, // SeekHead
  INFO,
  TRACKS,
  CLUSTER,
  0x1c53bb6b, // Cues
  0x1254c367, // Tags
  0x1043a770, // Chapters
  0x1941a469, // Attachments
  EBML,
  SEGMENT,
]);

interface Element {
  id: number;
  /** Where its content begins and ends; an unknown size runs to the end it was read within. */
  start: number;
  end: number;
  unknown: boolean;
}

/** The latest-starting block: its start, in TimecodeScale ticks, and what it lasts. */
interface LastBlock {
  ticks: number;
  durationTicks: number;
  opusMs: number;
}

/** A variable-length integer's length in bytes, from its first byte (0 for a 0 byte). */
const vintLength = (first: number) => (first === 0 ? 0 : Math.clz32(first) - 23);

function element(file: Bytes, pos: number, end: number): Element {
  const idLength = vintLength(file.u8(pos, end));
  if (idLength === 0 || idLength > 4) fail("malformed");
  let id = 0;
  for (let i = 0; i < idLength; i++) id = id * 256 + file.u8(pos + i, end);
  const sizeAt = pos + idLength;
  const first = file.u8(sizeAt, end);
  const sizeLength = vintLength(first);
  if (sizeLength === 0) fail("malformed");
  const mask = 0xff >> sizeLength;
  let size = first & mask;
  let allOnes = size === mask;
  for (let i = 1; i < sizeLength; i++) {
    const byte = file.u8(sizeAt + i, end);
    size = size * 256 + byte;
    allOnes &&= byte === 0xff;
  }
  const start = sizeAt + sizeLength;
  if (allOnes) return { id, start, end, unknown: true };
  if (size > end - start) fail("malformed");
  return { id, start, end: start + size, unknown: false };
}

/** The children of a known-size element. */
function* children(file: Bytes, parent: Element) {
  for (let pos = parent.start; pos < parent.end;) {
    const child = element(file, pos, parent.end);
    if (child.unknown) fail("malformed");
    yield child;
    pos = child.end;
  }
}

function uint(file: Bytes, el: Element) {
  if (el.end - el.start > 8) fail("malformed");
  let value = 0;
  for (let pos = el.start; pos < el.end; pos++) value = value * 256 + file.u8(pos);
  return value;
}

const text = (file: Bytes, el: Element) =>
  el.end - el.start > 64 ? "" : file.ascii(el.start, el.end - el.start).replace(/\0+$/, "");

function inspectWebm(file: Bytes): Found {
  const header = element(file, 0, file.length);
  if (header.unknown) fail("malformed");
  let docType = "matroska";
  for (const el of children(file, header)) if (el.id === DOC_TYPE) docType = text(file, el);
  if (docType !== "webm" && docType !== "matroska") fail("not-audio");
  for (let pos = header.end; pos < file.length;) {
    const el = element(file, pos, file.length);
    if (el.id === SEGMENT) return webmSegment(file, el);
    if (el.unknown) fail("malformed");
    pos = el.end;
  }
  return fail("malformed");
}

function webmSegment(file: Bytes, segment: Element): Found {
  let scale = 1_000_000;
  let duration = 0;
  let tracks = false;
  const last: LastBlock = { ticks: -Infinity, durationTicks: 0, opusMs: 0 };
  for (let pos = segment.start; pos < segment.end;) {
    const el = element(file, pos, segment.end);
    if (el.id === EBML) break; // a next file, chained on
    if (el.id === CLUSTER) {
      pos = webmCluster(file, el, last);
      continue;
    }
    if (el.unknown) fail("malformed");
    if (el.id === INFO) {
      for (const child of children(file, el)) {
        if (child.id === TIMECODE_SCALE) scale = uint(file, child);
        if (child.id === DURATION)
          duration = file.float(child.start, child.end - child.start, child.end);
      }
      if (scale <= 0 || !(duration >= 0)) fail("malformed");
    } else if (el.id === TRACKS) {
      webmTracks(file, el);
      tracks = true;
    }
    pos = el.end;
  }
  if (!tracks) fail("malformed");
  if (duration > 0) return { codec: "opus", ms: (duration * scale) / 1e6 };
  if (last.ticks === -Infinity) return { codec: "opus", ms: 0 };
  return { codec: "opus", ms: ((last.ticks + last.durationTicks) * scale) / 1e6 + last.opusMs };
}

/** Every track must be Opus audio. */
function webmTracks(file: Bytes, tracks: Element) {
  let opus = 0;
  for (const entry of children(file, tracks)) {
    if (entry.id !== TRACK_ENTRY) continue;
    let type = 2;
    let codec = "";
    for (const el of children(file, entry)) {
      if (el.id === TRACK_TYPE) type = uint(file, el);
      if (el.id === CODEC_ID) codec = text(file, el);
    }
    if (type !== 2 || codec !== "A_OPUS") fail("wrong-codec");
    opus++;
  }
  if (opus === 0) fail("wrong-codec");
}

/** Reads a Cluster's blocks into `last`; returns where the Cluster ends. */
function webmCluster(file: Bytes, cluster: Element, last: LastBlock) {
  let timecode = 0;
  for (let pos = cluster.start; pos < cluster.end;) {
    const el = element(file, pos, cluster.end);
    if (cluster.unknown && SEGMENT_LEVEL.has(el.id)) return pos;
    if (el.unknown) fail("malformed");
    if (el.id === TIMECODE) timecode = uint(file, el);
    if (el.id === SIMPLE_BLOCK) webmBlock(file, el, timecode, 0, last);
    if (el.id === BLOCK_GROUP) {
      let block: Element | undefined;
      let durationTicks = 0;
      for (const child of children(file, el)) {
        if (child.id === BLOCK) block = child;
        if (child.id === BLOCK_DURATION) durationTicks = uint(file, child);
      }
      if (block) webmBlock(file, block, timecode, durationTicks, last);
    }
    pos = el.end;
  }
  return cluster.end;
}

/** A (Simple)Block: track number, signed 16-bit timecode relative to its Cluster, flags, frames. */
function webmBlock(
  file: Bytes,
  block: Element,
  timecode: number,
  durationTicks: number,
  last: LastBlock,
) {
  const trackLength = vintLength(file.u8(block.start, block.end));
  if (trackLength === 0) fail("malformed");
  const at = block.start + trackLength;
  const ticks = timecode + ((file.u16(at, block.end) << 16) >> 16);
  const laced = (file.u8(at + 2, block.end) & 0x06) !== 0;
  if (ticks < last.ticks) return;
  const frame = at + 3;
  last.ticks = ticks;
  last.durationTicks = durationTicks;
  last.opusMs =
    durationTicks > 0 || laced || frame >= block.end
      ? 0
      : opusPacketMs(file.u8(frame), frame + 1 < block.end ? file.u8(frame + 1) : undefined);
}

// Ogg: pages of a 27-byte header ("OggS", version, flags, granule position, serial number,
// sequence, CRC, segment count) and a segment table; the Opus stream's last granule position,
// less the pre-skip, is its length in 48 kHz samples.

function inspectOgg(file: Bytes): Found {
  let serial: number | undefined;
  let preSkip = 0;
  let granule = 0;
  for (let pos = 0; file.length - pos >= 27;) {
    if (file.ascii(pos, 4) !== "OggS" || file.u8(pos + 4) !== 0) fail("malformed");
    const flags = file.u8(pos + 5);
    const [low, high] = [
      file.u32(pos + 6, file.length, true),
      file.u32(pos + 10, file.length, true),
    ];
    const pageSerial = file.u32(pos + 14, file.length, true);
    const segments = file.u8(pos + 26);
    const body = pos + 27 + segments;
    if (body > file.length) break; // a truncated last page
    let next = body;
    for (let i = 0; i < segments; i++) next += file.u8(pos + 27 + i);
    if (next > file.length) break;
    if (flags & 0x02) {
      // The first page of a stream: Opus's begins with its OpusHead packet.
      const opus =
        next - body >= 19 && file.ascii(body, 8) === "OpusHead" && file.u8(body + 8) < 16;
      if (!opus) fail("wrong-codec");
      if (serial === undefined) [serial, preSkip] = [pageSerial, file.u16(body + 10, next, true)];
    } else if (serial === undefined) {
      fail("malformed");
    } else if (pageSerial === serial && !(low === 0xffffffff && high === 0xffffffff)) {
      if (high >= 0x80000000) fail("malformed");
      granule = high * 2 ** 32 + low;
    }
    pos = next;
  }
  if (serial === undefined) fail("malformed");
  return { codec: "opus", ms: granule > preSkip ? (granule - preSkip) / 48 : 0 };
}

// MP4 (ISO BMFF): boxes of a 32-bit size (1: a 64-bit size follows; 0: to the end) and a type.
// The movie header's duration, else (fragmented) the fragments' declared or summed durations.

interface Box {
  type: string;
  start: number;
  end: number;
}

interface Movie {
  timescale: number;
  duration: number;
  fragmentDuration: number;
  trackId: number;
  trackTimescale: number;
  trexDuration: number;
}

function box(file: Bytes, pos: number, end: number): Box {
  let size = file.u32(pos, end);
  const type = file.ascii(pos + 4, 4, end);
  let start = pos + 8;
  if (size === 1) [size, start] = [file.u64(pos + 8, end), pos + 16];
  else if (size === 0) size = end - pos;
  if (size < start - pos || size > end - pos) fail("malformed");
  return { type, start, end: pos + size };
}

function* boxes(file: Bytes, start: number, end: number) {
  for (let pos = start; pos < end;) {
    const next = box(file, pos, end);
    yield next;
    pos = next.end;
  }
}

function child(file: Bytes, parent: Box | undefined, type: string) {
  if (!parent) return undefined;
  for (const next of boxes(file, parent.start, parent.end)) if (next.type === type) return next;
  return undefined;
}

/** A full box's version (0 or 1: 32- or 64-bit times and durations). */
function version(file: Bytes, full: Box) {
  const version = file.u8(full.start, full.end);
  return version <= 1 ? version : fail("malformed");
}

/** A 32-bit field at offset `v0` in version 0 of a full box, `v1` in version 1. */
const u32At = (file: Bytes, full: Box, v0: number, v1: number) =>
  file.u32(full.start + (version(file, full) === 0 ? v0 : v1), full.end);

/** A duration: 32 bits at offset `v0` in version 0, 64 at `v1` in version 1; all ones is unknown. */
function durationAt(file: Bytes, full: Box, v0: number, v1: number) {
  if (version(file, full) === 1) {
    const value = file.u64(full.start + v1, full.end);
    return value === 2 ** 64 ? 0 : value; // 2^64 - 1, rounded
  }
  const value = file.u32(full.start + v0, full.end);
  return value === 0xffffffff ? 0 : value;
}

function inspectMp4(file: Bytes): Found {
  let movie: Movie | undefined;
  let fragmentTicks = 0;
  for (const top of boxes(file, 0, file.length)) {
    if (top.type === "moov" && !movie) movie = mp4Movie(file, top);
    else if (top.type === "moof") {
      if (!movie) fail("malformed");
      fragmentTicks += mp4Fragment(file, top, movie);
    }
  }
  if (!movie) return fail("malformed");
  const seconds = (ticks: number, timescale: number) =>
    ticks === 0 ? 0 : timescale > 0 ? ticks / timescale : fail("malformed");
  const ms =
    seconds(movie.duration, movie.timescale) ||
    seconds(movie.fragmentDuration, movie.timescale) ||
    seconds(fragmentTicks, movie.trackTimescale);
  return { codec: "aac", ms: ms * 1000 };
}

/** The movie header and the first audio track; every track must be AAC audio. */
function mp4Movie(file: Bytes, moov: Box): Movie {
  const mvhd = child(file, moov, "mvhd") ?? fail("malformed");
  const movie: Movie = {
    timescale: u32At(file, mvhd, 12, 20),
    duration: durationAt(file, mvhd, 16, 24),
    fragmentDuration: 0,
    trackId: 0,
    trackTimescale: 0,
    trexDuration: 0,
  };
  for (const trak of boxes(file, moov.start, moov.end)) {
    if (trak.type !== "trak") continue;
    const mdia = child(file, trak, "mdia");
    const handler = child(file, mdia, "hdlr") ?? fail("malformed");
    if (file.ascii(handler.start + 8, 4, handler.end) !== "soun") fail("wrong-codec");
    const stsd =
      child(file, child(file, child(file, mdia, "minf"), "stbl"), "stsd") ?? fail("malformed");
    const entry = box(file, stsd.start + 8, stsd.end);
    if (entry.type !== "mp4a" || !isAac(file, entry)) fail("wrong-codec");
    if (movie.trackId !== 0) continue;
    const tkhd = child(file, trak, "tkhd") ?? fail("malformed");
    const mdhd = child(file, mdia, "mdhd") ?? fail("malformed");
    movie.trackId = u32At(file, tkhd, 12, 20);
    movie.trackTimescale = u32At(file, mdhd, 12, 20);
  }
  if (movie.trackId === 0) fail("malformed");
  const mvex = child(file, moov, "mvex");
  const mehd = child(file, mvex, "mehd");
  if (mehd) movie.fragmentDuration = durationAt(file, mehd, 4, 4);
  for (const trex of boxes(file, mvex?.start ?? 0, mvex?.end ?? 0)) {
    if (trex.type === "trex" && file.u32(trex.start + 4, trex.end) === movie.trackId) {
      movie.trexDuration = file.u32(trex.start + 12, trex.end);
    }
  }
  return movie;
}

/**
 * An `mp4a` entry's codec, from its `esds` (the ES descriptor's DecoderConfigDescriptor): MPEG-4
 * audio (0x40, AAC as browsers record it) or MPEG-2 AAC (0x66–0x68). MP3 (0x69, 0x6B) and others
 * also come as `mp4a`, and are not voice notes here.
 */
function isAac(file: Bytes, mp4a: Box): boolean {
  // An AudioSampleEntry's fields take 28 bytes (QuickTime's versions 1 and 2, 16 and 36 more);
  // the esds follows, or sits in a `wave` box.
  const entryVersion = file.u16(mp4a.start + 8, mp4a.end);
  const fields = 28 + (entryVersion === 1 ? 16 : entryVersion === 2 ? 36 : 0);
  const children: Box = { type: "mp4a", start: mp4a.start + fields, end: mp4a.end };
  const esds = child(file, children, "esds") ?? child(file, child(file, children, "wave"), "esds");
  if (!esds) return fail("malformed");
  let pos = esds.start + 4; // version and flags
  /** A descriptor's tag and where its body starts (its length: 1 to 4 bytes, 7 bits each). */
  const descriptor = () => {
    const tag = file.u8(pos, esds.end);
    pos += 1;
    for (let i = 0; i < 4; i++) {
      const b = file.u8(pos, esds.end);
      pos += 1;
      if ((b & 0x80) === 0) break;
    }
    return tag;
  };
  if (descriptor() !== 0x03) return fail("malformed");
  const flags = file.u8(pos + 2, esds.end);
  pos += 3; // ES_ID, flags
  if (flags & 0x80) pos += 2; // dependsOn_ES_ID
  if (flags & 0x40) pos += 1 + file.u8(pos, esds.end); // URL
  if (flags & 0x20) pos += 2; // OCR_ES_Id
  if (descriptor() !== 0x04) return fail("malformed");
  const objectType = file.u8(pos, esds.end);
  return objectType === 0x40 || (objectType >= 0x66 && objectType <= 0x68);
}

/** The audio track's sample durations in one movie fragment, in its media timescale. */
function mp4Fragment(file: Bytes, moof: Box, movie: Movie) {
  let ticks = 0;
  for (const traf of boxes(file, moof.start, moof.end)) {
    if (traf.type !== "traf") continue;
    const tfhd = child(file, traf, "tfhd") ?? fail("malformed");
    const tfhdFlags = file.u32(tfhd.start, tfhd.end) & 0xffffff;
    if (file.u32(tfhd.start + 4, tfhd.end) !== movie.trackId) continue;
    const durationAt = tfhd.start + 8 + (tfhdFlags & 0x01 ? 8 : 0) + (tfhdFlags & 0x02 ? 4 : 0);
    const fallback = tfhdFlags & 0x08 ? file.u32(durationAt, tfhd.end) : movie.trexDuration;
    for (const trun of boxes(file, traf.start, traf.end)) {
      if (trun.type !== "trun") continue;
      const flags = file.u32(trun.start, trun.end) & 0xffffff;
      const count = file.u32(trun.start + 4, trun.end);
      const first = trun.start + 8 + (flags & 0x01 ? 4 : 0) + (flags & 0x04 ? 4 : 0);
      const stride = 4 * [0x100, 0x200, 0x400, 0x800].filter((bit) => flags & bit).length;
      if (count * stride > trun.end - first) fail("malformed");
      if (!(flags & 0x100)) ticks += count * fallback;
      else for (let i = 0; i < count; i++) ticks += file.u32(first + i * stride, trun.end);
    }
  }
  return ticks;
}
