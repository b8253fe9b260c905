/**
 * Message safety (docs/api.md "Message safety", docs/domain.md "Chat";
 * docs/decisions/020-trust-and-safety.md): what the conversation room looks for in the text of a
 * message, as data. Each kind is a list of patterns, each tagged with its language, written for
 * the ways romance scams and abuse are really phrased (FTC and platform reports), and checked
 * against innocent phrasings in tests/unit/message-safety.test.ts.
 *
 * Pure and cheap: the patterns of a kind are compiled once per isolate into one regular
 * expression, and a message is normalised once (NFKC, lower case, invisible characters out), so
 * the room checks a send with a few regular-expression scans and no I/O.
 *
 * - For the recipient: `off_platform` (messengers, phone numbers, email addresses), `money` (asks
 *   for money, gift cards, crypto, payment apps) and `link` mark the message with a note shown as
 *   a warning with a one-tap report. Nothing is refused for them: the note is a nudge.
 * - For the sender: `harassment` asks "Are you sure?" (409) before the message is stored.
 * - A link from an account younger than a day is refused in its first messages (`hasLink`).
 */

import { HttpError } from "./errors.server";
import type { SafetyKind, SafetyNote } from "~/schemas/message-safety";

export type { SafetyKind, SafetyNote };

/** A link sent by an account younger than this is refused (422). */
export const LINK_MIN_ACCOUNT_AGE_MS = 24 * 60 * 60 * 1000;
export const LINKS_NOT_YET =
  "New accounts cannot send links during their first day. Please describe it in words instead.";

/** The 409 of a send that reads as harassment: `{message, safety}`; `confirm: true` sends it. */
export class SafetyCheck extends HttpError {
  constructor(readonly safety: SafetyNote) {
    super(409, safety.note);
  }

  override toJSON() {
    return { message: this.message, safety: this.safety };
  }
}

/** What the member is told, per kind. */
export const SAFETY_NOTES: Record<SafetyKind, string> = {
  off_platform:
    "This message asks to move the chat elsewhere. Scammers often do this to avoid our safety checks: keep chatting here until you have met and trust this person.",
  money:
    "This message seems to ask for money, gift cards or crypto. Never send money or share financial details with someone you have not met in person.",
  link: "This message contains a link. Only open links from people you trust, and never enter your password on a page reached from a chat.",
  harassment:
    "This message may come across as hurtful or disrespectful. Are you sure you want to send it?",
};

interface Pattern {
  /** ISO 639-1 language of the phrasing ("*" for any). */
  lang: string;
  /** A regular-expression source, matched against normalised (lower-case) text. */
  source: string;
}

const p = (lang: string, ...sources: string[]): Pattern[] =>
  sources.map((source) => ({ lang, source }));

/**
 * The rules, per kind. Sources match whole words (the compiler adds letter boundaries), against
 * lower-case text; `\s*` and optional punctuation stand for the spacing tricks seen in spam.
 */
export const SAFETY_RULES: Record<Exclude<SafetyKind, "link">, Pattern[]> = {
  off_platform: [
    ...p(
      "*",
      // Messenger names, with the spellings used to slip past filters.
      "whats\\s*app|whatsap|watsapp|wh?atsapp|wa\\.me",
      "(?:on|via|in|my|use)\\s+telegram|telegram\\s*(?:me|id|app|handle|:|@)|t\\.me\\/\\S+|tg\\s*:\\s*@?\\w+",
      "signal\\s*(?:app|me|number)",
      "snap\\s*chat|kik\\s*(?:me|messenger)?|wechat|viber|google\\s*hangouts?|skype|line\\s*id|imo\\s*app",
      // An email address, or one spelled out ("anna at gmail dot com").
      "[\\w.+-]+@[\\w-]+\\.[a-z]{2,}",
      "[\\w.+-]+\\s*(?:\\(at\\)|\\[at\\]|\\sat\\s)\\s*(?:gmail|yahoo|hotmail|outlook|icloud|proton(?:mail)?|gmx|aol)(?:\\s*(?:\\.|dot)\\s*\\w+)?",
    ),
    ...p(
      "en",
      "(?:text|call|ring|message|add|reach|contact|dm)\\s+me\\s+(?:on|at|via)\\s+(?:my\\s+)?(?:number|cell|phone|mobile|insta(?:gram)?|ig|snap|fb|facebook|messenger)",
      "(?:my|your)\\s+(?:phone\\s+)?(?:number|digits|cell|mobile)\\s+(?:is|please|so)",
      "(?:give|send)\\s+me\\s+your\\s+(?:number|digits|phone|email|insta|snap)",
      "(?:leave|get\\s+off|move\\s+off)\\s+(?:this|the)\\s+(?:app|site|platform)",
    ),
    ...p(
      "es",
      "(?:escr[ií]beme|h[aá]blame|agr[eé]game|ll[aá]mame)\\s+(?:al|por|en)\\s+(?:mi\\s+)?(?:n[uú]mero|whats|wasap|insta|tel[eé]fono|correo)",
      "(?:mi|tu)\\s+(?:n[uú]mero|tel[eé]fono|celular|correo)\\s+(?:es|por\\s+favor)",
      "(?:p[aá]same|dame|m[aá]ndame)\\s+tu\\s+(?:n[uú]mero|tel[eé]fono|celular|correo)",
    ),
    ...p(
      "fr",
      "(?:[ée]cris|parle|ajoute|appelle)[\\s-]*moi\\s+(?:sur|au|par)\\s+(?:mon\\s+)?(?:num[ée]ro|whats|insta|snap|t[ée]l[ée]phone|mail)",
      "(?:mon|ton)\\s+(?:num[ée]ro|portable|06|07|mail)\\s+(?:c'?est|est|stp)",
      "(?:donne|envoie)[\\s-]*moi\\s+ton\\s+(?:num[ée]ro|portable|mail|insta|snap)",
    ),
    ...p(
      "de",
      "(?:schreib|ruf|adde?)\\s+mich\\s+(?:auf|bei|unter|an)\\s+(?:meine[rn]?\\s+)?(?:nummer|handy|insta|snap|whats)",
      "(?:meine|deine)\\s+(?:handy)?nummer\\s+(?:ist|lautet|bitte)",
      "(?:gib|schick)\\s+mir\\s+deine\\s+(?:nummer|handynummer|mail|e-mail)",
    ),
    ...p(
      "pt",
      "me\\s+(?:chama|chame|add|adiciona)\\s+no\\s+(?:zap|whats|insta|telegram)",
      "(?:meu|teu|seu)\\s+(?:n[uú]mero|zap|celular|whats)\\s+(?:[eé]|por\\s+favor)",
      "(?:passa|manda|me\\s+passa)\\s+(?:o\\s+)?(?:teu|seu)\\s+(?:n[uú]mero|zap|whats|celular)",
    ),
  ],
  money: [
    ...p(
      "*",
      // Payment rails that scams ask for by name.
      "western\\s*union|money\\s*gram|cash\\s*app|\\$cashtag|venmo\\s+me|zelle\\s+me|paypal\\.me",
      // Gift cards by brand.
      "(?:itunes|apple|google\\s*play|steam|vanilla|razer)\\s*(?:gift\\s*)?cards?",
      // Crypto by wallet or coin.
      "(?:bitcoin|btc|usdt|tether|eth(?:ereum)?|crypto)\\s*(?:wallet|address|account)",
    ),
    ...p(
      "en",
      "(?:buy|get|send|grab)\\s+(?:me\\s+)?(?:some\\s+|a\\s+|an\\s+)?(?:\\w+\\s+)?gift\\s*cards?",
      "gift\\s*cards?\\s+(?:codes?|numbers?|pins?)|(?:scratch|send)\\s+(?:me\\s+)?(?:off\\s+)?the\\s+(?:codes?|pins?)",
      "(?:send|wire|transfer|lend|loan|give|spot)\\s+(?:me|us)\\s+(?:some\\s+)?(?:money|cash|funds|\\$\\s*\\d+|\\d+\\s*(?:\\$|dollars|euros?|pounds|usd|eur|gbp|bucks)|bitcoin|btc|crypto|usdt)",
      "(?:can|could|would)\\s+you\\s+(?:please\\s+)?(?:send|wire|transfer|lend|loan)\\s+(?:me\\s+)?(?:some\\s+)?(?:money|cash|funds|\\$|\\d)",
      "(?:i|we)\\s+(?:really\\s+|urgently\\s+)?need\\s+(?:some\\s+)?(?:money|cash|funds|\\$\\s*\\d+|\\d+\\s*(?:\\$|dollars|euros?|usd))",
      "(?:help\\s+me|can\\s+you|could\\s+you|would\\s+you)\\s+(?:to\\s+)?pay\\s+(?:for\\s+)?(?:my|the)\\s+(?:flight|ticket|visa|customs|hospital|medical|rent|bills?|fees?)",
      "(?:invest|investing|trade|trading)\\s+(?:in|with|on)\\s+(?:bitcoin|btc|crypto|forex|usdt|ethereum|my\\s+platform)",
      "(?:bank|account)\\s+(?:details|number|login)|routing\\s+number",
      "customs\\s+(?:fee|charges?|clearance)",
    ),
    ...p(
      "es",
      "(?:env[ií]ame|m[aá]ndame|pr[eé]stame|transf[ié]reme|depos[ií]tame)\\s+(?:algo\\s+de\\s+|un\\s+poco\\s+de\\s+)?(?:dinero|plata|pasta|efectivo|\\d+)",
      "(?:necesito|me\\s+hace\\s+falta)\\s+(?:algo\\s+de\\s+|un\\s+poco\\s+de\\s+)?(?:dinero|plata|\\d+\\s*(?:d[oó]lares|euros|pesos))",
      "tarjetas?\\s+(?:de\\s+)?regalo",
    ),
    ...p(
      "fr",
      "(?:envoie|pr[eê]te|vire)[\\s-]*moi\\s+(?:de\\s+l'|un\\s+peu\\s+d'|\\d+)\\s*(?:argent|euros?|€)?",
      "j'ai\\s+besoin\\s+d(?:e\\s+l'|')argent|j'ai\\s+besoin\\s+de\\s+\\d+\\s*(?:euros?|€)",
      "cartes?[\\s-]+cadeaux?|coupons?\\s+(?:pcs|transcash|neosurf)",
    ),
    ...p(
      "de",
      "(?:schick|[üu]berweis|leih)\\w*\\s+mir\\s+(?:etwas\\s+|bitte\\s+)?(?:geld|\\d+\\s*(?:euro|€))",
      "ich\\s+brauche\\s+(?:dringend\\s+)?(?:etwas\\s+)?(?:geld|\\d+\\s*(?:euro|€))",
      "gutschein(?:karten?|codes?)|paysafe\\s*card",
    ),
    ...p(
      "pt",
      "(?:me\\s+)?(?:manda|envia|empresta|transfere)\\s+(?:um\\s+)?(?:dinheiro|grana|\\d+\\s*reais)",
      "me\\s+faz\\s+um\\s+pix|manda\\s+(?:um\\s+)?pix|chave\\s+pix",
      "preciso\\s+de\\s+(?:um\\s+)?(?:dinheiro|grana|\\d+\\s*reais)",
      "cart[aã]o\\s+(?:de\\s+)?presente|vale[\\s-]presente",
    ),
  ],
  harassment: [
    ...p(
      "en",
      "(?:you(?:'re|\\s+are)?|ur|u\\s+r|u)\\s+(?:such\\s+)?(?:a\\s+|an\\s+|so\\s+|fucking\\s+)*(?:ugly|fat|worthless|whore|slut|bitch|cunt|skank|retard(?:ed)?|pathetic|disgusting|stupid|idiot|loser)",
      "(?:kill|hang|shoot)\\s+yo(?:u|ur)rself|kys",
      "(?:fuck|screw)\\s+(?:you|off|u)|stfu|shut\\s+(?:the\\s+fuck\\s+)?up\\s+(?:bitch|slut|whore|idiot)",
      "(?:send|show)\\s+(?:me\\s+)?(?:your\\s+)?(?:nudes|tits|boobs|dick\\s+pics?|pussy)",
      "no\\s*one\\s+(?:will\\s+|would\\s+)?(?:ever\\s+)?(?:love|want|date|fuck)\\s+you|nobody\\s+(?:will\\s+|would\\s+)?(?:ever\\s+)?(?:love|want|date|fuck)\\s+you",
      "i\\s+know\\s+where\\s+you\\s+live",
      "dumb\\s+(?:bitch|slut|whore|cunt)",
    ),
    ...p(
      "es",
      "(?:eres|sos)\\s+(?:una?\\s+|muy\\s+)*(?:puta|zorra|fea|gorda|est[uú]pida?|idiota|perra|basura)",
      "m[aá]tate|vete\\s+a\\s+la\\s+mierda|hija?\\s+de\\s+puta",
      "(?:m[aá]ndame|env[ií]ame)\\s+(?:fotos\\s+)?(?:desnuda|tetas|nudes)",
    ),
    ...p(
      "fr",
      "(?:t'es|tu\\s+es)\\s+(?:une?\\s+|trop\\s+|vraiment\\s+)*(?:moche|grosse|conne|salope|pute|chienne|d[ée]bile)",
      "salope|connasse|sale\\s+pute|va\\s+te\\s+faire\\s+foutre|ta\\s+gueule|suicide[\\s-]toi|cr[eè]ve",
      "envoie[\\s-]moi\\s+(?:des\\s+)?(?:nudes|photos\\s+nues?|tes\\s+seins)",
    ),
    ...p(
      "de",
      "du\\s+bist\\s+(?:so\\s+|echt\\s+|eine?\\s+)*(?:h[äa]sslich|fett|dumm|schlampe|hure|fotze|wertlos|behindert)",
      "schlampe|fotze|verpiss\\s+dich|fick\\s+dich|bring\\s+dich\\s+um|halt\\s+die\\s+fresse",
      "schick\\s+mir\\s+(?:nacktbilder|nacktfotos|nudes|deine\\s+titten)",
    ),
    ...p(
      "pt",
      "(?:voc[eê]|tu)\\s+[eé]\\s+(?:uma?\\s+|muito\\s+|t[aã]o\\s+)*(?:feia|gorda|vadia|puta|burra|idiota|in[uú]til|lixo)",
      "vai\\s+se\\s+foder|vai\\s+tomar\\s+no\\s+cu|se\\s+mata|filh[ao]\\s+da\\s+puta",
      "manda\\s+(?:uns?\\s+)?(?:nudes|foto\\s+pelada)",
    ),
  ],
};

// Links: a scheme, www., or a host under a top-level domain links are made with (not "e.g.").
// Top-level domains that are also words people type after a missed space ("thanks.it was fun")
// count only with a path after them.
const LINK = [
  "(?:https?:\\/\\/|www\\.)\\S+",
  "[a-z0-9][a-z0-9-]*(?:\\.[a-z0-9-]+)*\\.(?:com|net|org|io|ly|app|xyz|info|link|site|online|top|club|shop|live|vip|icu|ru|cn|tk|ml|biz|uk|br|gg|cc|page|dev|store|click)(?:\\/\\S*)?",
  "[a-z0-9][a-z0-9-]*(?:\\.[a-z0-9-]+)*\\.(?:me|co|to|in|us|it|de|es|fr|nl)\\/\\S*",
].join("|");

/** A source that matches only whole words (no letter or digit right before or after it). */
const whole = (source: string) => `(?<![\\p{L}\\p{N}_])(?:${source})(?![\\p{L}\\p{N}_])`;

function compile(patterns: Pattern[]): RegExp {
  return new RegExp(patterns.map((x) => whole(x.source)).join("|"), "u");
}

const COMPILED = {
  off_platform: compile(SAFETY_RULES.off_platform),
  money: compile(SAFETY_RULES.money),
  harassment: compile(SAFETY_RULES.harassment),
  link: new RegExp(whole(LINK), "u"),
};

/** A phone number: 9 to 15 digits, written with spaces, dots, dashes or brackets between them. */
const PHONE = /(?<![\p{L}\p{N}])\+?\(?\d[\d\s().-]{7,22}\d(?![\p{L}\p{N}])/gu;

function hasPhoneNumber(text: string): boolean {
  for (const match of text.matchAll(PHONE)) {
    const digits = match[0].replace(/\D/g, "").length;
    if (digits >= 9 && digits <= 15) return true;
  }
  return false;
}

// Spelled-out digits ("five five five …") are how numbers are slipped past filters.
const DIGIT_WORDS =
  /(?<![\p{L}])(?:zero|one|two|three|four|five|six|seven|eight|nine|oh)(?:[\s,.-]+(?:zero|one|two|three|four|five|six|seven|eight|nine|oh)){8,}(?![\p{L}])/u;

const INVISIBLE =
  /\u034F|\u1160|\u17B4|\u17B5|[\u00AD\u061C\u115F\u180E\u200B-\u200F\u2060-\u2064\uFEFF]/g;

/** The text as the rules read it: compatibility-normalised, lower case, no invisible characters. */
export function normaliseForSafety(text: string): string {
  return text.normalize("NFKC").replace(INVISIBLE, "").toLowerCase();
}

/** Whether the text carries a link. */
export function hasLink(text: string): boolean {
  return COMPILED.link.test(normaliseForSafety(text));
}

/**
 * The note a recipient sees on a message, or null: money first (the costliest harm), then a move
 * off the platform, then a link.
 */
export function recipientSafety(text: string): SafetyNote | null {
  if (!text) return null;
  const t = normaliseForSafety(text);
  const kind: SafetyKind | null = COMPILED.money.test(t)
    ? "money"
    : COMPILED.off_platform.test(t) || hasPhoneNumber(t) || DIGIT_WORDS.test(t)
      ? "off_platform"
      : COMPILED.link.test(t)
        ? "link"
        : null;
  return kind ? { kind, note: SAFETY_NOTES[kind] } : null;
}

/** The "Are you sure?" a sender sees before text that reads as harassment is stored, or null. */
export function senderSafety(text: string): SafetyNote | null {
  if (!text || !COMPILED.harassment.test(normaliseForSafety(text))) return null;
  return { kind: "harassment", note: SAFETY_NOTES.harassment };
}
