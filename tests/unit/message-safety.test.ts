import { describe, expect, it } from "vitest";
import {
  hasLink,
  recipientSafety,
  SAFETY_NOTES,
  senderSafety,
} from "~/server/message-safety.server";

const kindOf = (text: string) => recipientSafety(text)?.kind ?? null;

describe("message safety rules", () => {
  it("marks moves off the platform: messengers, phone numbers, emails, in several languages", () => {
    for (const text of [
      "Let's continue on WhatsApp, it's easier for me",
      "add me on whats app dear",
      "I'm rarely on here, text me on Telegram @sweet_anna92",
      "My number is +1 (415) 555-0132",
      "call me 07700 900123",
      "five five five one two three four five six seven",
      "write me at anna.smith88@gmail.com",
      "anna smith at gmail dot com",
      "do you have snapchat?",
      "wa.me/15550132",
      "escríbeme al whatsapp por favor",
      "pásame tu número",
      "écris-moi sur whatsapp stp",
      "donne-moi ton numéro",
      "schreib mich auf whatsapp an",
      "gib mir deine Nummer",
      "me chama no zap",
      "passa o teu número",
      "Whats\u200bApp me",
    ]) {
      expect(kindOf(text), text).toBe("off_platform");
    }
  });

  it("marks asks for money, gift cards and crypto, in several languages", () => {
    for (const text of [
      "Can you send me some money for the flight? I will pay you back",
      "I'm stuck at the airport, could you wire me $500",
      "please help me pay for my visa, the embassy is closing",
      "Buy me an Apple gift card and send the code",
      "scratch off the code and send me a photo",
      "send it by Western Union to my uncle",
      "I have a great way to invest in crypto, my platform doubles it",
      "what is your bitcoin wallet address?",
      "I need 300 dollars for the customs fee",
      "envíame dinero por favor, es urgente",
      "necesito 200 dólares",
      "envoie-moi de l'argent mon amour",
      "j'ai besoin d'argent pour le billet",
      "schick mir bitte Geld",
      "ich brauche dringend 500 Euro",
      "me faz um pix amor",
      "me empresta dinheiro",
      "cartão presente da Apple",
    ]) {
      expect(kindOf(text), text).toBe("money");
    }
  });

  it("marks links", () => {
    for (const text of [
      "look at this https://example.com/x",
      "www.my-profile-pics.net",
      "see bit.ly/3xYz",
      "my page: annasmith.site",
      "here example.de/foto",
    ]) {
      expect(kindOf(text), text).toBe("link");
      expect(hasLink(text), text).toBe(true);
    }
  });

  it("lets innocent messages pass", () => {
    for (const text of [
      "I'm paying for dinner this time, no arguments!",
      "Let's split the bill",
      "I spent too much money on concert tickets lol",
      "I work in fintech, mostly payments",
      "My sister gave me an Amazon gift card for my birthday",
      "What's up? How was your weekend?",
      "I was born in 1990 and moved here in 2015",
      "I have 2 cats and 1 dog",
      "The film starts at 19:30, meet at 7?",
      "Thanks.it was a lovely evening",
      "e.g. hiking, i.e. outdoors",
      "My favourite hangout is the café by the river",
      "We chat every day now :)",
      "I sent a postcard, not a telegram haha",
      "Do you like signal processing? I study it",
      "¿Pagamos la cena a medias?",
      "Je paie le dîner ce soir",
      "Ich lade dich zum Essen ein",
      "Eu pago o jantar",
      "I need a holiday",
      "Call me when you get home safe",
      "Node.js and Vue are my thing",
      "",
    ]) {
      expect(recipientSafety(text), text).toBeNull();
    }
  });

  it("asks the sender to think again about harassment, and lets banter pass", () => {
    for (const text of [
      "you're so ugly",
      "You are a worthless slut",
      "kys",
      "go kill yourself",
      "send nudes",
      "fuck you",
      "nobody will ever love you",
      "I know where you live",
      "eres una puta",
      "t'es trop moche",
      "du bist so hässlich",
      "você é uma vadia",
    ]) {
      expect(senderSafety(text), text).toEqual({
        kind: "harassment",
        note: SAFETY_NOTES.harassment,
      });
    }
    for (const text of [
      "You're killing it with that outfit",
      "I'm dying to see you again",
      "That movie was so stupid it was funny",
      "Are you the type who cries at films?",
      "I hate Mondays",
      "You look gorgeous",
      "Scunthorpe is where I grew up",
      "Essex and Sussex",
      "Thank you so much!",
    ]) {
      expect(senderSafety(text), text).toBeNull();
    }
  });
});
