import { createHash } from "node:crypto";

/** The alphabet of the application's ids (app/server/crypto.server.ts). */
const ID_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

function digest(key: string): Buffer {
  return createHash("sha256").update(`heartline-seed:${key}`).digest();
}

/**
 * A stable id in the shape of the application's own (20 characters of its base32 alphabet),
 * derived from a key such as `user:maya_okafor`: seeding twice writes the same rows.
 */
export function seedId(key: string): string {
  const bytes = digest(key);
  let id = "";
  for (let i = 0; i < 20; i++) id += ID_ALPHABET[bytes[i]! & 31];
  return id;
}

/** A small seeded generator (mulberry32): the same key always yields the same sequence. */
export class Random {
  private state: number;

  constructor(key: string) {
    this.state = digest(key).readUInt32LE(0);
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A float in [min, max). */
  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick() from an empty list");
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One item, chosen with the given relative weights. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((sum, [, w]) => sum + w, 0);
    let roll = this.next() * total;
    for (const [item, weight] of entries) {
      roll -= weight;
      if (roll < 0) return item;
    }
    return entries[entries.length - 1]![0];
  }

  /** `count` distinct items, in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < count && pool.length > 0) {
      out.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0]!);
    }
    return out;
  }
}
