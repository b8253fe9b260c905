import { describe, expect, it } from "vitest";
import { inspectVoiceNote, type VoiceNoteProblem } from "~/server/voice-notes.server";
import { CHROME_WEBM_BASE64, CHROME_WEBM_DURATION_MS } from "../fixtures/voice/chrome-webm";

type Bytes = Uint8Array | number[];

const concat = (...parts: Bytes[]) => {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};
const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));
const u16be = (n: number) => [(n >>> 8) & 255, n & 255];
const u32be = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const u64be = (n: number) => [...u32be(Math.floor(n / 2 ** 32)), ...u32be(n >>> 0)];
const u16le = (n: number) => u16be(n).reverse();
const u32le = (n: number) => u32be(n).reverse();
const zeros = (n: number) => new Array<number>(n).fill(0);
const fromBase64 = (base64: string) => Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));

const chromeWebm = fromBase64(CHROME_WEBM_BASE64);

/** A seeded generator (mulberry32), so a failing run can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

function expectOk(bytes: Uint8Array) {
  const result = inspectVoiceNote(bytes);
  if (!result.ok) throw new Error(`rejected as ${result.problem}`);
  return result.info;
}

const problemOf = (bytes: Uint8Array) => {
  const result = inspectVoiceNote(bytes);
  return result.ok ? "ok" : result.problem;
};

// WebM: EBML elements, sized with 8-byte sizes like MediaRecorder's, or of unknown size.

const UNKNOWN = [0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];

function ebml(id: number, ...content: Bytes[]) {
  const body = concat(...content);
  const idBytes = u32be(id).slice(Math.max(0, 3 - Math.floor(Math.log2(id) / 8)));
  return concat(idBytes, [0x01, 0, 0, 0, ...u32be(body.length)], body);
}
const ebmlUnknown = (id: number, ...content: Bytes[]) =>
  concat(ebml(id).slice(0, -8), UNKNOWN, ...content);
const ebmlUint = (id: number, n: number) => ebml(id, n < 2 ** 32 ? u32be(n) : u64be(n));
const ebmlText = (id: number, text: string) => ebml(id, ascii(text));
function ebmlFloat(id: number, value: number, size: 4 | 8 = 8) {
  const view = new DataView(new ArrayBuffer(size));
  if (size === 4) view.setFloat32(0, value);
  else view.setFloat64(0, value);
  return ebml(id, new Uint8Array(view.buffer));
}

/** Opus packets: CELT full band 20 ms (one frame), and three such frames in one 60 ms packet. */
const OPUS_20MS = [0xf8, 0xff, 0xfe];
const OPUS_60MS = [0xfb, 0x03, 0xff, 0xfe, 0xff, 0xfe];

const simpleBlock = (relative: number, packet: Bytes, track = 1) =>
  ebml(0xa3, [0x80 | track, ...u16be(relative & 0xffff), 0x80], packet);

interface WebmOptions {
  docType?: string;
  tracks?: { type: number; codec: string }[];
  info?: Bytes[];
  clusters?: { timecode: number; blocks: Uint8Array[] }[];
  /** Unknown-size Segment and Clusters, as Chromium writes them. */
  unknownSizes?: boolean;
  tail?: Bytes[];
}

function webm({
  docType = "webm",
  tracks = [{ type: 2, codec: "A_OPUS" }],
  info = [],
  clusters = [],
  unknownSizes = false,
  tail = [],
}: WebmOptions = {}) {
  const header = ebml(
    0x1a45dfa3,
    ebmlUint(0x4286, 1),
    ebmlUint(0x42f7, 1),
    ebmlUint(0x42f2, 4),
    ebmlUint(0x42f3, 8),
    ebmlText(0x4282, docType),
    ebmlUint(0x4287, 4),
    ebmlUint(0x4285, 2),
  );
  const opusHead = [...ascii("OpusHead"), 1, 1, ...u16le(0), ...u32le(48000), 0, 0, 0];
  const trackEntries = tracks.map(({ type, codec }, i) =>
    ebml(
      0xae,
      ebmlUint(0xd7, i + 1),
      ebmlUint(0x73c5, 1000 + i),
      ebmlUint(0x83, type),
      ebmlText(0x86, codec),
      ...(codec === "A_OPUS" ? [ebml(0x63a2, opusHead), ebml(0xe1, ebmlUint(0x9f, 1))] : []),
    ),
  );
  const segmentChildren = [
    ebml(0x1549a966, ebmlText(0x4d80, "test"), ...info),
    ebml(0x1654ae6b, ...trackEntries),
    ...clusters.map(({ timecode, blocks }) =>
      (unknownSizes ? ebmlUnknown : ebml)(0x1f43b675, ebmlUint(0xe7, timecode), ...blocks),
    ),
    ...tail,
  ];
  return concat(header, (unknownSizes ? ebmlUnknown : ebml)(0x18538067, ...segmentChildren));
}

/** `count` blocks of `packet`, `step` ms apart, in clusters of `perCluster`. */
function clustersOf(count: number, packet: Bytes, step: number, perCluster = 50) {
  const clusters = [];
  for (let first = 0; first < count; first += perCluster) {
    const blocks = [];
    for (let i = first; i < Math.min(count, first + perCluster); i++) {
      blocks.push(simpleBlock((i - first) * step, packet));
    }
    clusters.push({ timecode: first * step, blocks });
  }
  return clusters;
}

// Ogg: pages with a segment table (CRC left 0: readers of voice notes need not check it).

function oggPage(flags: number, granule: bigint, packets: Bytes[], serial = 0x1234, sequence = 0) {
  const table: number[] = [];
  for (const packet of packets) {
    table.push(
      ...new Array<number>(Math.floor(packet.length / 255)).fill(255),
      packet.length % 255,
    );
  }
  const granuleBytes = new Uint8Array(8);
  new DataView(granuleBytes.buffer).setBigUint64(0, BigInt.asUintN(64, granule), true);
  return concat(
    ascii("OggS"),
    [0, flags],
    granuleBytes,
    u32le(serial),
    u32le(sequence),
    [0, 0, 0, 0, table.length],
    table,
    ...packets,
  );
}

const opusHead = (preSkip: number) => [
  ...ascii("OpusHead"),
  1,
  1,
  ...u16le(preSkip),
  ...u32le(48000),
  0,
  0,
  0,
];
const opusTags = [...ascii("OpusTags"), ...u32le(4), ...ascii("test"), ...u32le(0)];

/** An Opus stream of 20 ms packets, 50 to a page, ending at `samples` + `preSkip`. */
function oggOpus(samples: number, preSkip = 312) {
  const pages = [oggPage(0x02, 0n, [opusHead(preSkip)]), oggPage(0, 0n, [opusTags], 0x1234, 1)];
  const packets = Math.ceil(samples / 960);
  for (let page = 0; page * 50 < packets; page++) {
    const count = Math.min(50, packets - page * 50);
    const last = (page + 1) * 50 >= packets;
    const granule = last ? samples + preSkip : (page * 50 + count) * 960 + preSkip;
    pages.push(
      oggPage(last ? 0x04 : 0, BigInt(granule), new Array(count).fill(OPUS_20MS), 0x1234, page + 2),
    );
  }
  return concat(...pages);
}

// MP4: boxes, and full boxes with a version and flags.

const box = (type: string, ...content: Bytes[]) => {
  const body = concat(...content);
  return concat(u32be(body.length + 8), ascii(type), body);
};
const fullBox = (type: string, version: number, flags: number, ...content: Bytes[]) =>
  box(type, [version, ...u32be(flags).slice(1)], ...content);

const matrix = [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000].flatMap(u32be);

function mvhd(timescale: number, duration: number, version = 0) {
  const times = version === 1 ? [...u64be(0), ...u64be(0)] : [...u32be(0), ...u32be(0)];
  const length = version === 1 ? u64be(duration) : u32be(duration);
  return fullBox(
    "mvhd",
    version,
    0,
    times,
    u32be(timescale),
    length,
    u32be(0x00010000),
    [1, 0],
    zeros(10),
    matrix,
    zeros(24),
    u32be(3),
  );
}

function trak(
  id: number,
  handler: "soun" | "vide",
  entry: Uint8Array,
  timescale: number,
  duration: number,
) {
  const tkhd = fullBox(
    "tkhd",
    0,
    3,
    zeros(8),
    u32be(id),
    zeros(4),
    u32be(duration),
    zeros(8),
    zeros(4),
    [1, 0, 0, 0],
    matrix,
    zeros(8),
  );
  const mdhd = fullBox(
    "mdhd",
    0,
    0,
    zeros(8),
    u32be(timescale),
    u32be(duration),
    [0x55, 0xc4, 0, 0],
  );
  const hdlr = fullBox("hdlr", 0, 0, zeros(4), ascii(handler), zeros(12), ascii("Core Media\0"));
  const stbl = box(
    "stbl",
    fullBox("stsd", 0, 0, u32be(1), entry),
    fullBox("stts", 0, 0, u32be(0)),
    fullBox("stsc", 0, 0, u32be(0)),
    fullBox("stsz", 0, 0, u32be(0), u32be(0)),
    fullBox("stco", 0, 0, u32be(0)),
  );
  return box(
    "trak",
    tkhd,
    box("mdia", mdhd, hdlr, box("minf", fullBox("smhd", 0, 0, zeros(4)), stbl)),
  );
}

/** An AAC sample entry; `objectType` is its esds's (0x40: MPEG-4 audio), null for no esds. */
const mp4aOf = (objectType: number | null) =>
  box(
    "mp4a",
    zeros(6),
    u16be(1),
    zeros(8),
    u16be(1),
    u16be(16),
    zeros(4),
    u32be(48000 * 65536),
    ...(objectType === null
      ? []
      : [
          fullBox("esds", 0, 0, [
            ...[0x03, 0x19, 0, 1, 0],
            ...[0x04, 0x11, objectType, 0x15, ...zeros(11)],
            ...[0x05, 0x02, 0x11, 0x90, 0x06, 0x01, 0x02],
          ]),
        ]),
  );

const mp4a = mp4aOf(0x40);
const avc1 = box(
  "avc1",
  zeros(6),
  u16be(1),
  zeros(16),
  u16be(640),
  u16be(480),
  zeros(50),
  box("avcC", [1, 0x42, 0, 0x1e, 0xff, 0xe0, 0]),
);

const ftyp = box("ftyp", ascii("M4A "), u32be(0), ascii("M4A isommp42"));

/** A plain MP4: `duration` in a 1000 Hz movie timescale, a 48 kHz AAC track, and its mdat. */
function mp4(
  duration: number,
  { version = 0, tracks = [trak(1, "soun", mp4a, 48000, duration * 48)] } = {},
) {
  return concat(
    ftyp,
    box("moov", mvhd(1000, duration, version), ...tracks),
    box("mdat", zeros(64)),
  );
}

interface Fragment {
  /** Per-sample durations (trun flag 0x100), or a count of samples of the default duration. */
  samples: number[] | number;
  /** tfhd's default_sample_duration (flag 0x08); otherwise trex's applies. */
  tfhdDefault?: number;
}

/** A fragmented MP4 as Safari's MediaRecorder writes it: mvhd duration 0, then moof/mdat pairs. */
function fragmentedMp4(fragments: Fragment[], { trexDefault = 1024, mehd = 0 } = {}) {
  const mvex = box(
    "mvex",
    ...(mehd ? [fullBox("mehd", 0, 0, u32be(mehd))] : []),
    fullBox("trex", 0, 0, u32be(1), u32be(1), u32be(trexDefault), u32be(0), u32be(0)),
  );
  const moov = box("moov", mvhd(1000, 0), trak(1, "soun", mp4a, 48000, 0), mvex);
  const moofs = fragments.map(({ samples, tfhdDefault }, i) => {
    const perSample = Array.isArray(samples);
    const count = perSample ? samples.length : samples;
    const tfhd = fullBox(
      "tfhd",
      0,
      0x020000 | (tfhdDefault ? 0x08 : 0),
      u32be(1),
      tfhdDefault ? u32be(tfhdDefault) : [],
    );
    const rows = perSample ? samples.flatMap((duration) => [...u32be(duration), ...u32be(6)]) : [];
    const trun = fullBox(
      "trun",
      0,
      0x01 | (perSample ? 0x300 : 0x200),
      u32be(count),
      u32be(0),
      perSample ? rows : new Array(count).fill(u32be(6)).flat(),
    );
    const traf = box("traf", tfhd, fullBox("tfdt", 1, 0, u64be(i * 48000)), trun);
    return concat(
      box("moof", fullBox("mfhd", 0, 0, u32be(i + 1)), traf),
      box("mdat", zeros(count * 6)),
    );
  });
  return concat(ftyp, moov, ...moofs);
}

describe("WebM voice notes", () => {
  it("measures a real Chromium MediaRecorder recording (unknown sizes, no Duration)", () => {
    // The recording's Segment and Clusters have an unknown size, and Info has no Duration.
    const hex = Array.from(chromeWebm.subarray(0, 400), (b) =>
      b.toString(16).padStart(2, "0"),
    ).join("");
    expect(hex).toContain("1853806701ffffffffffffff");
    expect(hex).toContain("1f43b67501ffffffffffffff");
    const info = expectOk(chromeWebm);
    expect(info).toMatchObject({ container: "webm", codec: "opus", contentType: "audio/webm" });
    expect(Math.abs(info.durationMs - CHROME_WEBM_DURATION_MS)).toBeLessThanOrEqual(150);
  });

  it("adds the last packet's length, read from its Opus TOC byte, to the last block's time", () => {
    const of = (packet: Bytes, step: number, count: number) =>
      expectOk(webm({ unknownSizes: true, clusters: clustersOf(count, packet, step, 17) }))
        .durationMs;
    expect(of(OPUS_60MS, 60, 50)).toBe(3000);
    expect(of(OPUS_20MS, 20, 123)).toBe(2460);
    // SILK wideband 40 ms (config 6), one frame.
    expect(of([0x30, 0x00], 40, 10)).toBe(400);
  });

  it("ends an unknown-size Cluster at the next top-level element", () => {
    const clusters = clustersOf(100, OPUS_20MS, 20, 30);
    const cues = ebml(0x1c53bb6b, ebml(0xbb, ebmlUint(0xb3, 0)));
    const tags = ebml(0x1254c367, ebml(0x7373));
    expect(expectOk(webm({ unknownSizes: true, clusters, tail: [cues, tags] })).durationMs).toBe(
      2000,
    );
  });

  it("reads the Duration from Info when there is one, in TimecodeScale units", () => {
    const clusters = clustersOf(10, OPUS_20MS, 20);
    expect(expectOk(webm({ info: [ebmlFloat(0x4489, 4321.5)], clusters })).durationMs).toBe(4322);
    const scaled = webm({ info: [ebmlUint(0x2ad7b1, 1_000), ebmlFloat(0x4489, 2_500_000, 4)] });
    expect(expectOk(scaled).durationMs).toBe(2500);
    // A zero Duration falls back to the blocks.
    expect(expectOk(webm({ info: [ebmlFloat(0x4489, 0)], clusters })).durationMs).toBe(200);
  });

  it("reads BlockGroups, and their BlockDuration", () => {
    const group = (relative: number, duration?: number) =>
      ebml(
        0xa0,
        ebml(0xa1, [0x81, ...u16be(relative), 0], OPUS_20MS),
        ...(duration ? [ebmlUint(0x9b, duration)] : []),
      );
    const clusters = [
      { timecode: 0, blocks: [group(0), group(20)] },
      { timecode: 1000, blocks: [simpleBlock(0, OPUS_20MS), group(500, 40)] },
    ];
    expect(expectOk(webm({ clusters })).durationMs).toBe(1540);
    expect(expectOk(webm({ clusters: clusters.slice(0, 1) })).durationMs).toBe(40);
  });

  it("accepts the matroska DocType, not others", () => {
    const clusters = clustersOf(5, OPUS_20MS, 20);
    expect(expectOk(webm({ docType: "matroska", clusters })).durationMs).toBe(100);
    expect(problemOf(webm({ docType: "mkvx", clusters }))).toBe("not-audio");
  });

  it("turns away other codecs and any video track", () => {
    const clusters = clustersOf(5, OPUS_20MS, 20);
    const opus = { type: 2, codec: "A_OPUS" };
    for (const tracks of [
      [{ type: 2, codec: "A_VORBIS" }],
      [{ type: 1, codec: "V_VP8" }],
      [{ type: 1, codec: "V_VP8" }, opus],
      [opus, { type: 1, codec: "V_VP9" }],
      [{ type: 1, codec: "A_OPUS" }],
      [],
    ]) {
      expect(problemOf(webm({ tracks, clusters }))).toBe("wrong-codec");
    }
  });

  it("has no duration without blocks or a Duration, and rejects impossible ones", () => {
    expect(problemOf(webm())).toBe("no-duration");
    expect(problemOf(webm({ unknownSizes: true }))).toBe("no-duration");
    expect(problemOf(webm({ info: [ebmlFloat(0x4489, -5)] }))).toBe("malformed");
    expect(problemOf(webm({ info: [ebmlFloat(0x4489, NaN)] }))).toBe("malformed");
    expect(problemOf(webm({ info: [ebmlFloat(0x4489, 1e15)] }))).toBe("malformed");
    expect(problemOf(webm({ info: [ebmlUint(0x2ad7b1, 0)] }))).toBe("malformed");
    const far = [{ timecode: 2 ** 40, blocks: [simpleBlock(0, OPUS_20MS)] }];
    expect(problemOf(webm({ clusters: far }))).toBe("malformed");
  });

  it("finds a file without Tracks or with an oversized element malformed", () => {
    // The recording's EBML header and the Segment's ID and unknown size take its first 48 bytes.
    expect(problemOf(chromeWebm.subarray(0, 48))).toBe("malformed");
    expect(problemOf(concat(chromeWebm.subarray(0, 48), [0x1f, 0x43, 0xb6, 0x75, 0x80]))).toBe(
      "malformed",
    );
    const oversized = concat(
      chromeWebm.subarray(0, 48),
      [0x15, 0x49, 0xa9, 0x66, 0x88, 0x2a, 0xd7],
    );
    expect(problemOf(oversized)).toBe("malformed");
  });
});

describe("Ogg voice notes", () => {
  it("measures the last granule position less the pre-skip", () => {
    const info = expectOk(oggOpus(48000 * 2.5, 312));
    expect(info).toEqual({
      container: "ogg",
      codec: "opus",
      contentType: "audio/ogg",
      durationMs: 2500,
    });
    expect(expectOk(oggOpus(12345, 3840)).durationMs).toBe(257);
    expect(expectOk(oggOpus(48000 * 70, 0)).durationMs).toBe(70000);
  });

  it("skips granule positions of -1, and a truncated last page", () => {
    const file = oggOpus(48000, 312);
    const open = oggPage(0, -1n, [new Array(300).fill(1)], 0x1234, 9);
    expect(expectOk(concat(file, open)).durationMs).toBe(1000);
    const longer = oggPage(0x04, BigInt(48000 * 3 + 312), [OPUS_20MS], 0x1234, 10);
    expect(expectOk(concat(file, longer)).durationMs).toBe(3000);
    for (let cut = 1; cut < longer.length; cut++) {
      expect(expectOk(concat(file, longer.subarray(0, cut))).durationMs).toBe(1000);
    }
  });

  it("reads only the Opus stream's pages", () => {
    const file = oggOpus(48000);
    const other = oggPage(0, BigInt(48000 * 50), [OPUS_20MS], 0x9999, 5);
    expect(expectOk(concat(file, other)).durationMs).toBe(1000);
  });

  it("turns away Vorbis, and any second stream that is not Opus", () => {
    const vorbis = [1, ...ascii("vorbis"), ...u32le(0), 1, ...u32le(44100), ...zeros(12), 0xb8, 1];
    expect(problemOf(oggPage(0x02, 0n, [vorbis]))).toBe("wrong-codec");
    const theora = oggPage(0x02, 0n, [[0x80, ...ascii("theora"), ...zeros(35)]], 0x777);
    const first = oggPage(0x02, 0n, [opusHead(312)]);
    expect(problemOf(concat(first, theora, oggOpus(48000).subarray(first.length)))).toBe(
      "wrong-codec",
    );
  });

  it("has no duration with only its headers, and is malformed without a first page", () => {
    const headers = concat(oggPage(0x02, 0n, [opusHead(312)]), oggPage(0, 0n, [opusTags]));
    expect(problemOf(headers)).toBe("no-duration");
    expect(problemOf(oggPage(0, 48000n, [opusHead(0)]))).toBe("malformed");
    expect(problemOf(concat(oggOpus(48000), ascii("junk".repeat(10))))).toBe("malformed");
    expect(problemOf(oggPage(0x02, 0n, [opusHead(0)]).subarray(0, 30))).toBe("malformed");
    expect(problemOf(concat(headers, oggPage(0, 2n ** 62n, [OPUS_20MS])))).toBe("malformed");
  });
});

describe("MP4 voice notes", () => {
  it("reads the movie header's duration, version 0 and 1", () => {
    const info = expectOk(mp4(2345));
    expect(info).toEqual({
      container: "mp4",
      codec: "aac",
      contentType: "audio/mp4",
      durationMs: 2345,
    });
    expect(expectOk(mp4(61_000, { version: 1 })).durationMs).toBe(61_000);
  });

  it("sums a fragmented file's per-sample durations", () => {
    const fragments = [{ samples: new Array(40).fill(1024) }, { samples: [1024, 1024, 512] }];
    // (42 × 1024 + 512) / 48000 s
    expect(expectOk(fragmentedMp4(fragments)).durationMs).toBe(907);
  });

  it("uses tfhd's default sample duration, else trex's", () => {
    const tfhd = [
      { samples: 47, tfhdDefault: 1024 },
      { samples: 47, tfhdDefault: 1024 },
    ];
    expect(expectOk(fragmentedMp4(tfhd, { trexDefault: 1 })).durationMs).toBe(2005);
    expect(expectOk(fragmentedMp4([{ samples: 94 }], { trexDefault: 1024 })).durationMs).toBe(2005);
    const mixed = [{ samples: 47 }, { samples: [2048] }, { samples: 1, tfhdDefault: 960 }];
    // (47 × 1024 + 2048 + 960) / 48000 s
    expect(expectOk(fragmentedMp4(mixed, { trexDefault: 1024 })).durationMs).toBe(1065);
  });

  it("prefers mvex/mehd's fragment duration", () => {
    expect(expectOk(fragmentedMp4([{ samples: 10 }], { mehd: 4000 })).durationMs).toBe(4000);
  });

  it("turns away video, and audio that is not AAC", () => {
    const video = trak(2, "vide", avc1, 90000, 90000);
    expect(problemOf(mp4(1000, { tracks: [video] }))).toBe("wrong-codec");
    const audio = trak(1, "soun", mp4a, 48000, 48000);
    expect(problemOf(mp4(1000, { tracks: [audio, video] }))).toBe("wrong-codec");
    const opus = trak(1, "soun", box("Opus", zeros(28)), 48000, 48000);
    expect(problemOf(mp4(1000, { tracks: [opus] }))).toBe("wrong-codec");
    // MP3 also comes in an `mp4a` entry: its esds says what it is.
    for (const mp3 of [0x69, 0x6b]) {
      const track = trak(1, "soun", mp4aOf(mp3), 48000, 48000);
      expect(problemOf(mp4(1000, { tracks: [track] }))).toBe("wrong-codec");
    }
    for (const aac of [0x40, 0x66, 0x67, 0x68]) {
      const track = trak(1, "soun", mp4aOf(aac), 48000, 48000);
      expect(expectOk(mp4(1000, { tracks: [track] })).codec).toBe("aac");
    }
    expect(problemOf(mp4(1000, { tracks: [trak(1, "soun", mp4aOf(null), 48000, 48000)] }))).toBe(
      "malformed",
    );
  });

  it("has no duration when nothing gives one, and rejects impossible sizes", () => {
    expect(problemOf(fragmentedMp4([]))).toBe("no-duration");
    expect(problemOf(mp4(0))).toBe("no-duration");
    expect(problemOf(mp4(0xffffffff))).toBe("no-duration"); // all ones: unknown
    expect(problemOf(mp4(1000, { tracks: [] }))).toBe("malformed");
    expect(problemOf(concat(ftyp, box("mdat", zeros(8))))).toBe("malformed");
    // A box claiming more than the file, or a 64-bit size of 2^60.
    expect(problemOf(concat(ftyp, u32be(0x7fffffff), ascii("moov")))).toBe("malformed");
    expect(problemOf(concat(ftyp, u32be(1), ascii("moov"), u64be(2 ** 60)))).toBe("malformed");
    // A trun claiming four billion samples, with and without a row for each.
    const file = fragmentedMp4([{ samples: [1024] }]);
    const trun = findBytes(file, ascii("trun"));
    const huge = file.slice();
    huge.set(u32be(0xffffffff), trun + 8);
    expect(problemOf(huge)).toBe("malformed");
    huge.set([0, 0, 0, 0x01], trun + 4);
    expect(problemOf(huge)).toBe("malformed");
  });
});

function findBytes(haystack: Uint8Array, needle: number[]) {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  throw new Error("not found");
}

const PROBLEMS: (VoiceNoteProblem | "ok")[] = [
  "ok",
  "not-audio",
  "wrong-codec",
  "no-duration",
  "malformed",
];

const fixtures: [string, Uint8Array][] = [
  ["Chromium WebM", chromeWebm],
  [
    "WebM with Duration",
    webm({ info: [ebmlFloat(0x4489, 400)], clusters: clustersOf(20, OPUS_20MS, 20, 7) }),
  ],
  ["Ogg Opus", oggOpus(48000 * 1.5)],
  ["MP4", mp4(1500)],
  ["fragmented MP4", fragmentedMp4([{ samples: [1024, 1024] }, { samples: 3, tfhdDefault: 1024 }])],
];

describe("anything else", () => {
  it("is not audio: images, other files, random bytes, nothing", () => {
    const jpeg = [0xff, 0xd8, 0xff, 0xe0, 0, 0x10, ...ascii("JFIF"), 0, 1, 1, 0, 0, 1, 0, 1, 0, 0];
    const png = [0x89, ...ascii("PNG\r\n\x1a\n"), ...zeros(20)];
    const wav = [...ascii("RIFF"), ...u32le(36), ...ascii("WAVEfmt "), ...zeros(24)];
    const next = random(1);
    const noise = Uint8Array.from({ length: 4096 }, () => Math.floor(next() * 256));
    for (const bytes of [jpeg, png, wav, ascii("<html>"), [0x1a, 0x45], []]) {
      expect(problemOf(Uint8Array.from(bytes))).toBe("not-audio");
    }
    expect(problemOf(noise)).toBe("not-audio");
  });

  it("answers for every prefix of each fixture without throwing", () => {
    for (const [name, bytes] of fixtures) {
      const full = expectOk(bytes).durationMs;
      for (let length = 0; length < bytes.length; length++) {
        const result = inspectVoiceNote(bytes.subarray(0, length));
        if (result.ok) expect(result.info.durationMs, name).toBeLessThanOrEqual(full);
        else expect(PROBLEMS, name).toContain(result.problem);
      }
    }
  });

  it("survives random mutations of each fixture", () => {
    const next = random(0x5eed);
    for (const [name, original] of fixtures) {
      for (let round = 0; round < 600; round++) {
        let bytes = original.slice();
        for (let edits = 1 + Math.floor(next() * 8); edits > 0; edits--) {
          const at = Math.floor(next() * bytes.length);
          const choice = next();
          if (choice < 0.5) bytes[at] = Math.floor(next() * 256);
          else if (choice < 0.7)
            bytes[at] = [0x00, 0x01, 0x7f, 0x80, 0xff][Math.floor(next() * 5)]!;
          else if (choice < 0.85)
            bytes = concat(bytes.subarray(0, at), bytes.subarray(at + 1 + Math.floor(next() * 16)));
          else
            bytes = concat(bytes.subarray(0, at), [Math.floor(next() * 256)], bytes.subarray(at));
        }
        const result = inspectVoiceNote(bytes);
        expect(PROBLEMS, name).toContain(result.ok ? "ok" : result.problem);
        if (result.ok) expect(result.info.durationMs).toBeGreaterThan(0);
      }
    }
  });

  it("gets through a hostile megabyte quickly", () => {
    const started = Date.now();
    // A million one-byte EBML Voids in an unknown-size Cluster; a million empty MP4 boxes' worth of
    // nested headers; an Ogg file of a page after page of empty segments.
    const voids = new Uint8Array(1 << 20).fill(0x80);
    for (let i = 0; i < voids.length; i += 2) voids[i] = 0xec;
    const tracks = ebml(0x1654ae6b, ebml(0xae, ebmlUint(0x83, 2), ebmlText(0x86, "A_OPUS")));
    expect(
      problemOf(
        concat(ebml(0x1a45dfa3), ebmlUnknown(0x18538067, tracks, ebmlUnknown(0x1f43b675, voids))),
      ),
    ).toBe("no-duration");
    const emptyBoxes = new Uint8Array(1 << 20);
    for (let i = 0; i < emptyBoxes.length; i += 8)
      emptyBoxes.set([0, 0, 0, 8, ...ascii("free")], i);
    expect(problemOf(concat(ftyp, emptyBoxes))).toBe("malformed");
    const page = oggPage(0, 0n, []);
    const pages = concat(
      oggPage(0x02, 0n, [opusHead(0)]),
      ...new Array(Math.floor((1 << 20) / page.length)).fill(page),
    );
    expect(problemOf(pages)).toBe("no-duration");
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
