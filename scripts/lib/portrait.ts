import { encodePng } from "./png";
import { Random } from "./random";

/**
 * Stylised profile pictures drawn from signed distance functions: a soft gradient backdrop with a
 * small scene (hills, a skyline, the sea, bokeh, an arch…) and a head-and-shoulders figure whose
 * skin, hair, clothes and expression are chosen per member. The same member keeps the same face
 * and hair across their photos; backdrop, clothes and framing change from photo to photo.
 */

export const PHOTO_WIDTH = 480;
export const PHOTO_HEIGHT = 600;

type RGB = readonly [number, number, number];
type Sdf = (x: number, y: number) => number;
type Paint = RGB | ((x: number, y: number) => RGB);
type Box = readonly [number, number, number, number];

export interface PortraitSubject {
  /** A stable key (the username): the same key always draws the same person. */
  key: string;
  gender: string;
  ethnicity: string;
  age: number;
}

// ---------------------------------------------------------------------------------------------
// Colour helpers

/** Math.hypot for two numbers, without its (slow) generality. */
const len = (x: number, y: number) => Math.sqrt(x * x + y * y);
const clamp = (v: number, lo = 0, hi = 1) => (v < lo ? lo : v > hi ? hi : v);
const mix = (a: RGB, b: RGB, t: number): RGB => [
  a[0] + (b[0] - a[0]) * t,
  a[1] + (b[1] - a[1]) * t,
  a[2] + (b[2] - a[2]) * t,
];
const shade = (c: RGB, f: number): RGB => [c[0] * f, c[1] * f, c[2] * f];
const lighten = (c: RGB, t: number): RGB => mix(c, [255, 255, 255], t);

// ---------------------------------------------------------------------------------------------
// Signed distance functions (negative inside), in pixels

const circle =
  (cx: number, cy: number, r: number): Sdf =>
  (x, y) =>
    len(x - cx, y - cy) - r;

/** An ellipse; a close approximation of the true distance, exact enough for anti-aliasing. */
const ellipse =
  (cx: number, cy: number, rx: number, ry: number): Sdf =>
  (x, y) => {
    const px = x - cx;
    const py = y - cy;
    const k0 = len(px / rx, py / ry);
    if (k0 < 1e-6) return -Math.min(rx, ry);
    const k1 = len(px / (rx * rx), py / (ry * ry));
    return (k0 * (k0 - 1)) / k1;
  };

const roundBox =
  (cx: number, cy: number, hw: number, hh: number, r: number): Sdf =>
  (x, y) => {
    const qx = Math.abs(x - cx) - hw + r;
    const qy = Math.abs(y - cy) - hh + r;
    return len(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
  };

const capsule =
  (ax: number, ay: number, bx: number, by: number, r: number): Sdf =>
  (x, y) => {
    const pax = x - ax;
    const pay = y - ay;
    const bax = bx - ax;
    const bay = by - ay;
    const h = clamp((pax * bax + pay * bay) / (bax * bax + bay * bay));
    return len(pax - bax * h, pay - bay * h) - r;
  };

const triangle = (a: [number, number], b: [number, number], c: [number, number]): Sdf => {
  const edges: [number, number, number, number][] = [
    [a[0], a[1], b[0] - a[0], b[1] - a[1]],
    [b[0], b[1], c[0] - b[0], c[1] - b[1]],
    [c[0], c[1], a[0] - c[0], a[1] - c[1]],
  ];
  const orientation = Math.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));
  return (x, y) => {
    let dist = Infinity;
    let inside = true;
    for (const [ox, oy, ex, ey] of edges) {
      const px = x - ox;
      const py = y - oy;
      const h = clamp((px * ex + py * ey) / (ex * ex + ey * ey));
      dist = Math.min(dist, len(px - ex * h, py - ey * h));
      if (orientation * (ex * py - ey * px) < 0) inside = false;
    }
    return inside ? -dist : dist;
  };
};

const union =
  (...shapes: Sdf[]): Sdf =>
  (x, y) => {
    let d = Infinity;
    for (const s of shapes) d = Math.min(d, s(x, y));
    return d;
  };
const intersect =
  (a: Sdf, b: Sdf): Sdf =>
  (x, y) =>
    Math.max(a(x, y), b(x, y));
const subtract =
  (a: Sdf, b: Sdf): Sdf =>
  (x, y) =>
    Math.max(a(x, y), -b(x, y));
/** The signed vertical gap to the curve y = f(x), scaled by its slope into a distance estimate. */
const gap = (f: (x: number) => number, x: number, y: number) => {
  const slope = (f(x + 0.5) - f(x - 0.5)) / 1;
  return (y - f(x)) / Math.sqrt(1 + slope * slope);
};
/** The region below (larger y than) the curve y = f(x). */
const below =
  (f: (x: number) => number): Sdf =>
  (x, y) =>
    -gap(f, x, y);
/** The region above the curve y = f(x). */
const above =
  (f: (x: number) => number): Sdf =>
  (x, y) =>
    gap(f, x, y);

// ---------------------------------------------------------------------------------------------
// Canvas

const TILE = 8;

class Canvas {
  readonly px: Float32Array;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.px = new Float32Array(width * height * 3);
  }

  /** Every pixel from a function of its centre. */
  /**
   * The backdrop: a vertical gradient from `top` to `bottom`, slanted by `slant`, lit by a soft
   * round glow of `accent` centred on (glowX, glowY).
   */
  gradient(top: RGB, bottom: RGB, accent: RGB, slant: number, glowX: number, glowY: number): void {
    const px = this.px;
    for (let y = 0; y < this.height; y++) {
      const cy = y + 0.5;
      for (let x = 0; x < this.width; x++) {
        const cx = x + 0.5;
        const t = clamp(cy / this.height + slant * (cx / this.width - 0.5));
        const k = t * t * (3 - 2 * t);
        const g = clamp(1 - len(cx - glowX, cy - glowY) / 330);
        const w = g * g * 0.55;
        const i = (y * this.width + x) * 3;
        for (let c = 0; c < 3; c++) {
          const base = top[c]! + (bottom[c]! - top[c]!) * k;
          px[i + c] = base + (accent[c]! - base) * w;
        }
      }
    }
  }

  /**
   * Paints `paint` where `sdf` is negative, inside `box`, anti-aliased over `soft` pixels of edge,
   * at `opacity`. The box is walked in tiles: a tile whose centre is far from the edge is skipped
   * (outside) or filled without evaluating the shape per pixel (inside).
   */
  draw(box: Box, sdf: Sdf, paint: Paint, opacity = 1, soft = 1): void {
    const x0 = Math.max(0, Math.floor(box[0]));
    const y0 = Math.max(0, Math.floor(box[1]));
    const x1 = Math.min(this.width, Math.ceil(box[2]));
    const y1 = Math.min(this.height, Math.ceil(box[3]));
    const solid = typeof paint === "function" ? null : paint;
    for (let ty = y0; ty < y1; ty += TILE) {
      const th = Math.min(TILE, y1 - ty);
      for (let tx = x0; tx < x1; tx += TILE) {
        const tw = Math.min(TILE, x1 - tx);
        // Twice the tile's half-diagonal: the shapes here are distance estimates, not exact.
        const margin = len(tw, th) + soft;
        const centre = sdf(tx + tw / 2, ty + th / 2);
        if (centre > margin) continue;
        const inside = centre < -margin;
        for (let y = ty; y < ty + th; y++) {
          for (let x = tx; x < tx + tw; x++) {
            const cx = x + 0.5;
            const cy = y + 0.5;
            let a = opacity;
            if (!inside) {
              const d = sdf(cx, cy);
              if (d >= soft * 0.5) continue;
              a *= clamp(0.5 - d / soft);
              if (a <= 0) continue;
            }
            const c = solid ?? (paint as (x: number, y: number) => RGB)(cx, cy);
            const i = (y * this.width + x) * 3;
            this.px[i] = this.px[i]! + (c[0] - this.px[i]!) * a;
            this.px[i + 1] = this.px[i + 1]! + (c[1] - this.px[i + 1]!) * a;
            this.px[i + 2] = this.px[i + 2]! + (c[2] - this.px[i + 2]!) * a;
          }
        }
      }
    }
  }

  toRgb(): Uint8Array {
    // A clamped array rounds and clamps each value on the way in.
    const out = new Uint8ClampedArray(this.px.length);
    out.set(this.px);
    return new Uint8Array(out.buffer);
  }
}

const ALL: Box = [0, 0, PHOTO_WIDTH, PHOTO_HEIGHT];
const around = (cx: number, cy: number, rx: number, ry = rx): Box => [
  cx - rx - 2,
  cy - ry - 2,
  cx + rx + 2,
  cy + ry + 2,
];

// ---------------------------------------------------------------------------------------------
// Palettes

const BACKDROPS: { top: RGB; bottom: RGB; accent: RGB }[] = [
  { top: [255, 221, 196], bottom: [247, 160, 152], accent: [255, 244, 214] }, // peach
  { top: [219, 210, 255], bottom: [152, 160, 232], accent: [250, 236, 255] }, // lavender
  { top: [206, 242, 224], bottom: [112, 188, 178], accent: [246, 255, 236] }, // mint
  { top: [255, 206, 128], bottom: [222, 112, 140], accent: [255, 236, 170] }, // sunset
  { top: [182, 224, 255], bottom: [118, 168, 230], accent: [255, 255, 236] }, // sky
  { top: [84, 80, 158], bottom: [234, 136, 152], accent: [255, 214, 170] }, // dusk
  { top: [250, 238, 210], bottom: [224, 192, 158], accent: [255, 250, 236] }, // sand
  { top: [255, 210, 228], bottom: [214, 140, 192], accent: [255, 240, 246] }, // rose
  { top: [38, 78, 110], bottom: [96, 156, 164], accent: [236, 248, 220] }, // teal night
  { top: [255, 242, 176], bottom: [248, 186, 116], accent: [255, 252, 226] }, // lemon
];

const SCENES = ["hills", "city", "sea", "bokeh", "arch", "dots", "studio"] as const;
type Scene = (typeof SCENES)[number];

const CLOTHES: RGB[] = [
  [38, 128, 135], // teal
  [214, 162, 46], // mustard
  [232, 108, 92], // coral
  [40, 56, 110], // navy
  [46, 110, 76], // forest
  [128, 38, 62], // burgundy
  [150, 130, 210], // lavender
  [238, 236, 230], // off-white
  [62, 64, 72], // charcoal
  [70, 110, 160], // denim
  [182, 82, 46], // rust
  [112, 122, 62], // olive
  [226, 130, 170], // pink
  [120, 182, 230], // sky
];

const SKIN: RGB[] = [
  [247, 219, 196],
  [241, 200, 170],
  [232, 186, 150],
  [222, 170, 130],
  [205, 150, 110],
  [188, 132, 92],
  [160, 108, 72],
  [135, 88, 58],
  [110, 70, 46],
  [86, 55, 38],
];
const SKIN_RANGE: Record<string, [number, number]> = {
  White: [0, 3],
  Black: [6, 9],
  "Hispanic / Latino": [2, 6],
  "East Asian": [1, 3],
  "South Asian": [4, 7],
  "Southeast Asian": [3, 6],
  "Middle Eastern": [2, 5],
  Indigenous: [4, 7],
  Mixed: [2, 7],
};

const HAIR = {
  black: [34, 28, 28],
  darkBrown: [62, 42, 30],
  brown: [104, 68, 42],
  auburn: [134, 60, 34],
  ginger: [192, 100, 52],
  blonde: [214, 176, 112],
  lightBlonde: [234, 210, 156],
  grey: [152, 150, 150],
  silver: [208, 208, 212],
  pink: [226, 122, 165],
  teal: [58, 150, 160],
  lilac: [170, 140, 212],
} satisfies Record<string, RGB>;
type HairColour = keyof typeof HAIR;

const HAIR_BY_ETHNICITY: Record<string, [HairColour, number][]> = {
  White: [
    ["black", 1],
    ["darkBrown", 3],
    ["brown", 3],
    ["auburn", 1],
    ["ginger", 1],
    ["blonde", 2],
    ["lightBlonde", 1],
  ],
  Mixed: [
    ["black", 3],
    ["darkBrown", 3],
    ["brown", 2],
    ["auburn", 1],
  ],
  "Hispanic / Latino": [
    ["black", 3],
    ["darkBrown", 3],
    ["brown", 2],
  ],
  "Middle Eastern": [
    ["black", 3],
    ["darkBrown", 3],
    ["brown", 1],
  ],
};
const DARK_HAIR: [HairColour, number][] = [
  ["black", 5],
  ["darkBrown", 2],
];

type HairStyle =
  "long" | "bob" | "bun" | "ponytail" | "afro" | "curly" | "short" | "sidepart" | "buzz" | "bald";

// ---------------------------------------------------------------------------------------------
// The person: fixed per member

interface Person {
  skin: RGB;
  hair: RGB;
  brow: RGB;
  style: HairStyle;
  beard: "none" | "stubble" | "full";
  glasses: RGB | null;
  earrings: RGB | null;
  eye: RGB;
  lips: RGB;
  headWidth: number;
  headHeight: number;
}

function personFor(subject: PortraitSubject): Person {
  const rng = new Random(`portrait:${subject.key}`);
  const [lo, hi] = SKIN_RANGE[subject.ethnicity] ?? [1, 7];
  const base = SKIN[rng.int(lo, hi)]!;
  const skin = mix(base, SKIN[Math.min(9, hi + 1)]!, rng.range(0, 0.3));

  let hairName: HairColour = rng.weighted(HAIR_BY_ETHNICITY[subject.ethnicity] ?? DARK_HAIR);
  const playful = subject.gender === "non-binary" ? 0.3 : subject.age < 30 ? 0.08 : 0;
  if (rng.chance(playful)) hairName = rng.pick(["pink", "teal", "lilac"] as const);
  let hair: RGB = HAIR[hairName];
  if (subject.age >= 55 && rng.chance(0.75)) hair = HAIR[rng.pick(["grey", "silver"] as const)];
  else if (subject.age >= 44 && rng.chance(0.4)) hair = mix(hair, HAIR.grey, 0.45);

  const curlyBias = subject.ethnicity === "Black" ? 3 : 1;
  const style: HairStyle =
    subject.gender === "woman"
      ? rng.weighted<HairStyle>([
          ["long", 30],
          ["bob", 15],
          ["bun", 12],
          ["ponytail", 12],
          ["afro", 8 * curlyBias],
          ["curly", 6 * curlyBias],
          ["short", 5],
        ])
      : subject.gender === "man"
        ? rng.weighted<HairStyle>([
            ["short", 35],
            ["sidepart", 16],
            ["buzz", 14 * curlyBias],
            ["curly", 8 * curlyBias],
            ["bald", subject.age >= 45 ? 22 : 5],
            ["long", 4],
          ])
        : rng.weighted<HairStyle>([
            ["short", 20],
            ["bob", 20],
            ["curly", 12 * curlyBias],
            ["long", 15],
            ["bun", 10],
            ["buzz", 10],
            ["sidepart", 10],
          ]);

  const beard =
    subject.gender === "man" && rng.chance(0.45)
      ? rng.chance(0.5)
        ? "full"
        : "stubble"
      : subject.gender === "non-binary" && rng.chance(0.1)
        ? "stubble"
        : "none";

  const glasses = rng.chance(0.22)
    ? rng.pick<RGB>([
        [34, 30, 30],
        [108, 66, 38],
        [196, 160, 80],
        [90, 96, 110],
      ])
    : null;
  const earrings =
    subject.gender !== "man" && rng.chance(0.45)
      ? rng.pick<RGB>([
          [222, 184, 90],
          [210, 212, 218],
        ])
      : null;

  const darkSkin = skin[0] < 170;
  return {
    skin,
    hair,
    brow: mix(hair, [40, 30, 28], hair[0] > 140 ? 0.55 : 0.25),
    style,
    beard,
    glasses,
    earrings,
    eye: rng.pick<RGB>([
      [44, 32, 26],
      [58, 40, 28],
      [40, 52, 62],
      [52, 70, 52],
    ]),
    lips: mix(skin, darkSkin ? [176, 88, 98] : [176, 78, 84], 0.55),
    headWidth: rng.range(64, 74),
    headHeight: rng.range(84, 92),
  };
}

// ---------------------------------------------------------------------------------------------
// Backdrops

function paintBackdrop(canvas: Canvas, rng: Random, scene: Scene) {
  const palette = rng.pick(BACKDROPS);
  const { top, bottom, accent } = palette;
  const glowX = rng.range(80, 400);
  const glowY = rng.range(60, 260);
  const slant = rng.range(-0.25, 0.25);
  canvas.gradient(top, bottom, accent, slant, glowX, glowY);

  const far = mix(bottom, [40, 40, 70], 0.25);
  switch (scene) {
    case "hills": {
      const sunX = rng.range(90, 390);
      const sunY = rng.range(150, 250);
      const sunR = rng.range(48, 80);
      canvas.draw(around(sunX, sunY, sunR * 2), circle(sunX, sunY, sunR * 1.5), accent, 0.35, 40);
      canvas.draw(around(sunX, sunY, sunR), circle(sunX, sunY, sunR), lighten(accent, 0.3));
      const green = rng.pick<RGB>([
        [96, 160, 110],
        [120, 150, 200],
        [150, 110, 170],
        [70, 130, 120],
      ]);
      for (let layer = 0; layer < 3; layer++) {
        const base = 330 + layer * 55 + rng.range(-15, 15);
        const amp = rng.range(18, 40);
        const freq = rng.range(0.006, 0.014);
        const phase = rng.range(0, Math.PI * 2);
        const colour = mix(mix(bottom, green, 0.45 + layer * 0.18), [30, 40, 50], layer * 0.12);
        canvas.draw(
          [0, base - amp - 2, PHOTO_WIDTH, PHOTO_HEIGHT],
          below((x) => base + amp * Math.sin(x * freq + phase)),
          colour,
        );
      }
      break;
    }
    case "city": {
      const moonX = rng.range(70, 410);
      canvas.draw(around(moonX, 110, 30), circle(moonX, 110, 30), lighten(accent, 0.5), 0.85);
      for (const row of [0, 1]) {
        let x = -rng.range(0, 30);
        const colour = mix(far, [30, 30, 55], 0.25 + row * 0.25);
        while (x < PHOTO_WIDTH) {
          const w = rng.range(34, 78);
          const h = rng.range(90, 250) - row * 50;
          const topY = PHOTO_HEIGHT - 170 - h + row * 60;
          canvas.draw(
            [x, topY, x + w, PHOTO_HEIGHT],
            roundBox(x + w / 2, (topY + PHOTO_HEIGHT) / 2, w / 2 - 2, (PHOTO_HEIGHT - topY) / 2, 3),
            colour,
          );
          if (row === 1) {
            for (let wy = topY + 14; wy < PHOTO_HEIGHT - 20; wy += 22) {
              for (let wx = x + 9; wx < x + w - 12; wx += 15) {
                if (rng.chance(0.35)) {
                  canvas.draw(
                    [wx, wy, wx + 7, wy + 10],
                    roundBox(wx + 3.5, wy + 5, 3.5, 5, 1),
                    accent,
                    0.8,
                  );
                }
              }
            }
          }
          x += w + rng.range(2, 10);
        }
      }
      break;
    }
    case "sea": {
      const horizon = rng.range(300, 360);
      const sunX = rng.range(100, 380);
      const sunR = rng.range(40, 65);
      canvas.draw(
        around(sunX, horizon, sunR * 2.2),
        circle(sunX, horizon, sunR * 1.8),
        accent,
        0.3,
        50,
      );
      canvas.draw(around(sunX, horizon, sunR), circle(sunX, horizon, sunR), lighten(accent, 0.25));
      const water = mix(bottom, [40, 110, 170], 0.5);
      canvas.draw(
        [0, horizon, PHOTO_WIDTH, PHOTO_HEIGHT],
        below(() => horizon),
        (_x, y) => mix(water, shade(water, 0.7), clamp((y - horizon) / 260)),
      );
      for (let i = 0; i < 14; i++) {
        const y = horizon + 8 + i * i * 1.6 + rng.range(0, 4);
        const half = rng.range(8, 26) * (1 + i * 0.08);
        const x = sunX + rng.range(-20, 20) * (1 + i * 0.05);
        canvas.draw(around(x, y, half, 3), capsule(x - half, y, x + half, y, 1.4), accent, 0.55);
      }
      break;
    }
    case "bokeh": {
      for (let i = 0; i < 16; i++) {
        const x = rng.range(0, PHOTO_WIDTH);
        const y = rng.range(0, PHOTO_HEIGHT * 0.75);
        const r = rng.range(14, 58);
        const soft = rng.range(4, 22);
        canvas.draw(
          around(x, y, r + soft),
          circle(x, y, r),
          lighten(rng.pick([accent, top, bottom]), 0.4),
          rng.range(0.18, 0.45),
          soft,
        );
      }
      break;
    }
    case "arch": {
      const archColour = mix(rng.pick([top, bottom, accent]), rng.pick(CLOTHES), 0.35);
      canvas.draw(
        [60, 60, 420, PHOTO_HEIGHT],
        union(circle(240, 240, 170), roundBox(240, 420, 170, 180, 0)),
        archColour,
        0.9,
      );
      const leaf = mix([70, 140, 90], bottom, 0.2);
      for (const side of [-1, 1]) {
        const bx = 240 + side * 190;
        for (let i = 0; i < 4; i++) {
          const ly = 300 + i * 60;
          const lx = bx + side * rng.range(0, 20);
          const rot = side * (0.6 + i * 0.15);
          canvas.draw(
            around(lx, ly, 60),
            rotated(lx, ly, rot, ellipse(lx, ly, 22, 56)),
            shade(leaf, 0.9 + i * 0.05),
          );
        }
      }
      break;
    }
    case "dots": {
      const dot = lighten(accent, 0.3);
      const gap = rng.range(34, 48);
      for (let y = gap / 2; y < PHOTO_HEIGHT; y += gap) {
        for (let x = ((y / gap) % 2) * (gap / 2); x < PHOTO_WIDTH; x += gap) {
          canvas.draw(around(x, y, 6), circle(x, y, 5), dot, 0.35);
        }
      }
      break;
    }
    case "studio": {
      canvas.draw(ALL, (x, y) => 260 - len(x - 240, y - 300), shade(bottom, 0.75), 0.4, 260);
      break;
    }
  }
}

function rotated(cx: number, cy: number, angle: number, shape: Sdf): Sdf {
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  return (x, y) => {
    const dx = x - cx;
    const dy = y - cy;
    return shape(cx + dx * cos + dy * sin, cy - dx * sin + dy * cos);
  };
}

// ---------------------------------------------------------------------------------------------
// The figure

/** An egg-shaped head: an ellipse that narrows towards the chin. */
function head(cx: number, hy: number, rx: number, ry: number): Sdf {
  const shape = ellipse(0, 0, rx, ry);
  return (x, y) => {
    const v = Math.max(0, (y - hy) / ry);
    const k = 1 - 0.16 * v * v;
    return shape((x - cx) / k, y - hy) * k;
  };
}

/** A union of two shapes with a rounded seam `k` pixels wide. */
function smoothUnion(a: Sdf, b: Sdf, k: number): Sdf {
  return (x, y) => {
    const da = a(x, y);
    const db = b(x, y);
    const h = Math.max(k - Math.abs(da - db), 0) / k;
    return Math.min(da, db) - (h * h * k) / 4;
  };
}

function paintFigure(canvas: Canvas, person: Person, rng: Random, scene: Scene) {
  const s = rng.range(1.0, 1.18);
  const cx = 240 + rng.range(-30, 30);
  const hy = 248 + rng.range(-14, 14);
  const rx = person.headWidth * s;
  const ry = person.headHeight * s;
  const { skin, hair } = person;
  const skinShadow = shade(skin, 0.8);

  const clothes = rng.pick(CLOTHES);
  const neckline = rng.pick(["crew", "vneck", "collar", "hoodie", "turtleneck"] as const);
  const collarY = hy + ry + 26 * s;
  const shoulderY = collarY + 60 * s;
  const shoulderHalf = 168 * s;
  const neckHalf = 29 * s;
  const hairBox = around(cx, hy + 60 * s, rx + 60 * s, ry + 130 * s);

  // Hair behind the head.
  const back = backHair(person.style, cx, hy, rx, ry, s);
  if (back) canvas.draw(hairBox, back, shade(hair, 0.84));

  // Neck and chest, under the clothes; a soft shadow under the jaw.
  const neckTop = hy + ry * 0.4;
  const neckBottom = collarY + 40 * s;
  canvas.draw(
    around(cx, collarY, 70 * s, neckBottom - neckTop + 60 * s),
    union(
      roundBox(cx, (neckTop + neckBottom) / 2, neckHalf, (neckBottom - neckTop) / 2, 24 * s),
      intersect(
        ellipse(cx, collarY + 44 * s, 58 * s, 64 * s),
        below(() => collarY - 22 * s),
      ),
    ),
    (x) => shade(skin, 0.93 - (0.08 * Math.abs(x - cx)) / (58 * s)),
  );
  canvas.draw(
    around(cx, hy + ry * 0.85, rx, 44 * s),
    intersect(
      ellipse(cx, hy + ry * 0.78, rx * 0.58, 30 * s),
      roundBox(cx, (neckTop + neckBottom) / 2, neckHalf, (neckBottom - neckTop) / 2, 24 * s),
    ),
    skinShadow,
    0.75,
    14,
  );

  // Torso with sloping shoulders, and its neckline.
  let torso: Sdf = smoothUnion(
    roundBox(cx, shoulderY + 320, shoulderHalf, 330, 92 * s),
    ellipse(cx, collarY + 48 * s, shoulderHalf * 0.74, 52 * s),
    48 * s,
  );
  if (neckline === "crew" || neckline === "hoodie") {
    torso = subtract(torso, ellipse(cx, collarY, 40 * s, 26 * s));
  } else if (neckline === "vneck" || neckline === "collar") {
    torso = subtract(
      torso,
      triangle(
        [cx - 44 * s, collarY - 24 * s],
        [cx + 44 * s, collarY - 24 * s],
        [cx, collarY + 80 * s],
      ),
    );
  }
  canvas.draw(
    [cx - shoulderHalf - 4, collarY - 10 * s, cx + shoulderHalf + 4, PHOTO_HEIGHT],
    torso,
    (x, y) => {
      const edge = Math.abs(x - cx) / shoulderHalf;
      return shade(clothes, 1 - 0.18 * edge * edge - 0.12 * clamp((y - collarY) / 320));
    },
  );

  if (neckline === "turtleneck") {
    const half = neckHalf + 8 * s;
    canvas.draw(
      around(cx, collarY - 10 * s, half + 4, 50 * s),
      roundBox(cx, collarY - 12 * s, half, 36 * s, 16 * s),
      (x) => shade(clothes, 0.96 - (0.12 * Math.abs(x - cx)) / half),
    );
    for (const dy of [-28, -16, -4]) {
      const y = collarY + dy * s;
      canvas.draw(
        around(cx, y, half, 4),
        capsule(cx - half + 8 * s, y, cx + half - 8 * s, y, 1.2 * s),
        shade(clothes, 0.85),
        0.6,
      );
    }
  } else if (neckline === "collar") {
    const collar = lighten(clothes, 0.55);
    for (const side of [-1, 1]) {
      canvas.draw(
        around(cx + side * 40 * s, collarY + 10 * s, 60 * s),
        triangle(
          [cx + side * 46 * s, collarY - 26 * s],
          [cx + side * 4 * s, collarY + 50 * s],
          [cx + side * 80 * s, collarY + 22 * s],
        ),
        collar,
      );
    }
  } else if (neckline === "hoodie") {
    const ring = subtract(
      ellipse(cx, collarY + 6 * s, 80 * s, 40 * s),
      ellipse(cx, collarY - 2 * s, 46 * s, 27 * s),
    );
    canvas.draw(around(cx, collarY, 84 * s, 50 * s), ring, shade(clothes, 0.82));
    for (const side of [-1, 1]) {
      const x = cx + side * 20 * s;
      canvas.draw(
        around(x, collarY + 75 * s, 12 * s, 50 * s),
        capsule(x, collarY + 34 * s, x + side * 3 * s, collarY + 110 * s, 3 * s),
        lighten(clothes, 0.6),
      );
    }
  }

  // Ears (hidden by long hair), then the head.
  const earsVisible = !["long", "bob", "afro"].includes(person.style);
  if (earsVisible) {
    for (const side of [-1, 1]) {
      const ex = cx + side * (rx - 4 * s);
      canvas.draw(
        around(ex, hy + 10 * s, 18 * s, 24 * s),
        ellipse(ex, hy + 10 * s, 12 * s, 19 * s),
        shade(skin, 0.92),
      );
    }
  }
  canvas.draw(around(cx, hy, rx, ry), head(cx, hy, rx, ry), (x, y) => {
    const u = (x - cx) / rx;
    const v = (y - hy) / ry;
    return shade(skin, 1.03 - 0.1 * u * u - 0.05 * Math.max(0, v));
  });
  if (person.earrings && earsVisible) {
    for (const side of [-1, 1]) {
      const ex = cx + side * (rx - 3 * s);
      canvas.draw(
        around(ex, hy + 33 * s, 7 * s),
        circle(ex, hy + 33 * s, 4.5 * s),
        person.earrings,
      );
    }
  }

  // Face: eyes with a catch-light, brows, blush, nose.
  const eyeY = hy + 8 * s;
  const eyeDx = 26 * s;
  for (const side of [-1, 1]) {
    const ex = cx + side * eyeDx;
    canvas.draw(
      around(ex, eyeY, 12 * s, 10 * s),
      ellipse(ex, eyeY + 0.5 * s, 10 * s, 6.5 * s),
      [250, 248, 244],
      0.92,
    );
    canvas.draw(around(ex, eyeY, 8 * s, 10 * s), ellipse(ex, eyeY, 6 * s, 7 * s), person.eye);
    canvas.draw(
      around(ex + 2 * s, eyeY - 2.5 * s, 3 * s),
      circle(ex + 2 * s, eyeY - 2.5 * s, 1.8 * s),
      [255, 255, 255],
      0.9,
    );
    const browY = eyeY - 19 * s;
    canvas.draw(
      around(ex, browY, 16 * s, 6 * s),
      capsule(ex - side * 9 * s, browY + 1.5 * s, ex + side * 9 * s, browY - 1.5 * s, 2.6 * s),
      person.brow,
    );
    const bx = ex + side * 12 * s;
    canvas.draw(
      around(bx, hy + 32 * s, 24 * s),
      ellipse(bx, hy + 32 * s, 13 * s, 8 * s),
      [236, 120, 120],
      0.06 + 0.1 * clamp((skin[0] - 150) / 100),
      10,
    );
  }
  canvas.draw(
    around(cx, hy + 28 * s, 10 * s),
    ellipse(cx, hy + 28 * s, 6 * s, 4 * s),
    skinShadow,
    0.5,
    3,
  );

  // Beard: from the sideburns down, leaving the upper cheeks clear.
  if (person.beard !== "none") {
    const top = (x: number) => {
      const u = clamp((x - cx) / rx, -1.2, 1.2);
      return hy + 40 * s - 28 * s * u ** 4;
    };
    const full = person.beard === "full";
    canvas.draw(
      around(cx, hy + ry * 0.5, rx + 6 * s, ry * 0.7),
      intersect(head(cx, hy + 3 * s, rx + 3 * s, ry + 6 * s), below(top)),
      shade(hair, 0.9),
      full ? 0.95 : 0.2,
      full ? 2 : 8,
    );
  }

  // Mouth: a smile, sometimes an open one.
  const mouthY = hy + 46 * s;
  if (rng.chance(0.35)) {
    const open = intersect(
      ellipse(cx, mouthY - 3 * s, 17 * s, 12 * s),
      below(() => mouthY - 4 * s),
    );
    canvas.draw(around(cx, mouthY, 20 * s, 14 * s), open, [98, 36, 44]);
    canvas.draw(
      around(cx, mouthY, 20 * s, 14 * s),
      intersect(
        open,
        above(() => mouthY + 1 * s),
      ),
      [250, 248, 244],
    );
  } else {
    const r = 20 * s;
    const cy = mouthY - r * 0.95;
    const arc = intersect(
      (x, y) => Math.abs(len(x - cx, y - cy) - r) - 2.3 * s,
      below(() => cy + r * 0.72),
    );
    canvas.draw(around(cx, mouthY, r, 10 * s), arc, person.lips);
  }

  // Hair in front.
  const front = frontHair(person.style, cx, hy, rx, ry, s, rng);
  if (front) {
    canvas.draw(hairBox, front, (x, y) => {
      const v = clamp((y - (hy - ry)) / (ry * 1.4));
      return shade(hair, 1.08 - 0.2 * v - (0.04 * Math.abs(x - cx)) / rx);
    });
  }

  // Glasses; sunglasses by the sea, sometimes.
  const sunglasses = scene === "sea" && rng.chance(0.5);
  if (person.glasses || sunglasses) {
    const frame = person.glasses ?? [30, 30, 34];
    for (const side of [-1, 1]) {
      const gx = cx + side * eyeDx;
      const lens = circle(gx, eyeY, 16 * s);
      if (sunglasses) canvas.draw(around(gx, eyeY, 17 * s), lens, [36, 40, 52], 0.92);
      else canvas.draw(around(gx, eyeY, 17 * s), lens, [255, 255, 255], 0.1);
      canvas.draw(around(gx, eyeY, 19 * s), (x, y) => Math.abs(lens(x, y)) - 1.6 * s, frame);
    }
    canvas.draw(
      around(cx, eyeY, 12 * s, 6 * s),
      capsule(cx - eyeDx + 16 * s, eyeY - 2 * s, cx + eyeDx - 16 * s, eyeY - 2 * s, 1.6 * s),
      frame,
    );
  }
}

function bumpy(shape: Sdf, cx: number, cy: number, bumps: number, depth: number): Sdf {
  return (x, y) => shape(x, y) - depth * Math.abs(Math.sin(Math.atan2(y - cy, x - cx) * bumps));
}

function backHair(
  style: HairStyle,
  cx: number,
  hy: number,
  rx: number,
  ry: number,
  s: number,
): Sdf | null {
  const crown = ellipse(cx, hy - 6 * s, rx + 14 * s, ry + 10 * s);
  switch (style) {
    case "long":
      return union(crown, roundBox(cx, hy + 60 * s, rx + 24 * s, ry + 60 * s, 44 * s));
    case "bob":
      return union(crown, roundBox(cx, hy + 8 * s, rx + 20 * s, ry * 0.82, 36 * s));
    case "bun":
      return union(crown, circle(cx, hy - ry - 14 * s, 32 * s));
    case "ponytail":
      return union(crown, ellipse(cx + rx * 0.95, hy + 34 * s, 26 * s, 80 * s));
    case "afro":
      return bumpy(ellipse(cx, hy - 18 * s, rx + 46 * s, ry + 34 * s), cx, hy - 18 * s, 9, 7 * s);
    case "curly":
      return bumpy(ellipse(cx, hy - 14 * s, rx + 22 * s, ry + 14 * s), cx, hy - 14 * s, 11, 5 * s);
    default:
      return null;
  }
}

function frontHair(
  style: HairStyle,
  cx: number,
  hy: number,
  rx: number,
  ry: number,
  s: number,
  rng: Random,
): Sdf | null {
  const part = rng.pick([-1, 1]);
  const cap = (grow: number, lift: number) =>
    ellipse(cx, hy - lift * s, rx + grow * s, ry + grow * s);
  // A hairline y = f(x): `top` above the head centre in the middle, dropping `drop` at the sides.
  const hairline =
    (top: number, drop: number, tilt = 0) =>
    (x: number) => {
      const u = (x - cx) / rx;
      return hy - top * ry + drop * ry * u * u + tilt * ry * u * part;
    };
  switch (style) {
    case "long":
      return intersect(cap(8, 4), above(hairline(0.42, 0.95, 0.12)));
    case "bob":
      return intersect(
        cap(10, 2),
        above((x) => Math.min(hy - 0.3 * ry + 1.1 * ry * ((x - cx) / rx) ** 4, hy + 0.7 * ry)),
      );
    case "bun":
    case "ponytail":
      return intersect(cap(5, 4), above(hairline(0.5, 0.5, 0.08)));
    case "afro":
      return bumpy(intersect(cap(14, 14), above(hairline(0.55, 0.7))), cx, hy, 14, 3 * s);
    case "curly":
      return bumpy(intersect(cap(10, 10), above(hairline(0.5, 0.55))), cx, hy, 13, 4 * s);
    case "short":
      return union(
        intersect(cap(6, 8), above(hairline(0.48, 0.42, 0.1))),
        ellipse(cx + part * 12 * s, hy - ry * 0.86, rx * 0.78, 26 * s),
      );
    case "sidepart":
      return union(
        intersect(cap(5, 6), above(hairline(0.5, 0.42, 0.08))),
        rotated(
          cx - part * 6 * s,
          hy - ry * 0.84,
          part * 0.14,
          ellipse(cx - part * 6 * s, hy - ry * 0.84, rx * 0.74, 20 * s),
        ),
      );
    case "buzz":
      return intersect(cap(2, 1), above(hairline(0.58, 0.55)));
    case "bald":
      return null;
  }
}

/** One member's `index`-th photo as raw RGB bytes (480 × 600 × 3, row by row). */
export function drawPortrait(subject: PortraitSubject, index: number): Uint8Array {
  const person = personFor(subject);
  const rng = new Random(`photo:${subject.key}:${index}`);
  const scene = rng.pick(SCENES);
  const canvas = new Canvas(PHOTO_WIDTH, PHOTO_HEIGHT);
  paintBackdrop(canvas, rng, scene);
  paintFigure(canvas, person, rng, scene);
  return canvas.toRgb();
}

/** One member's `index`-th photo as a PNG file (480 × 600). */
export function renderPortrait(subject: PortraitSubject, index: number): Uint8Array<ArrayBuffer> {
  return encodePng(PHOTO_WIDTH, PHOTO_HEIGHT, drawPortrait(subject, index));
}
