import { allCities } from "./locations";
import { Random } from "./random";
import type { RosterEntry } from "./roster";
import {
  INTERESTS,
  PREFERENCES,
  type Ethnicity,
  type Gender,
  type Interest,
  type Preference,
} from "./vocabulary";

/**
 * Extra members beyond the hand-written roster, for when a caller (a benchmark, say) asks for more
 * people than the roster holds. They are plausible rather than polished: names fitting the
 * country, a bio put together from short sentences, interests and preferences drawn at random.
 */

interface NamePool {
  women: string[];
  men: string[];
  neutral: string[];
  last: string[];
  ethnicities: [Ethnicity, number][];
}

const NAMES: Record<string, NamePool> = {
  US: {
    women: ["Emily", "Hannah", "Jasmine", "Megan", "Rachel", "Aaliyah", "Camila", "Grace"],
    men: ["Jacob", "Ethan", "Andre", "Brandon", "Kevin", "Luis", "Nathan", "Caleb"],
    neutral: ["Jordan", "Taylor", "Casey", "Avery"],
    last: ["Johnson", "Williams", "Garcia", "Miller", "Davis", "Washington", "Nguyen", "Parker"],
    ethnicities: [
      ["White", 5],
      ["Black", 2],
      ["Hispanic / Latino", 2],
      ["East Asian", 1],
      ["Mixed", 1],
    ],
  },
  GB: {
    women: ["Charlotte", "Sophie", "Amelia", "Zara", "Holly", "Niamh", "Isla", "Priya"],
    men: ["Harry", "James", "Callum", "Tom", "Jamal", "Rhys", "Imran", "George"],
    neutral: ["Alex", "Charlie", "Jamie", "Robin"],
    last: ["Smith", "Jones", "Taylor", "Walker", "Ahmed", "Campbell", "Roberts", "Khan"],
    ethnicities: [
      ["White", 6],
      ["South Asian", 2],
      ["Black", 1],
      ["Mixed", 1],
    ],
  },
  DE: {
    women: ["Anna", "Lea", "Sophie", "Marie", "Hannah", "Katharina", "Jana", "Ayşe"],
    men: ["Lukas", "Maximilian", "Paul", "Tobias", "Niklas", "Jan", "Moritz", "Emre"],
    neutral: ["Kim", "Luca", "Sascha", "Robin"],
    last: ["Müller", "Schneider", "Fischer", "Wagner", "Becker", "Hoffmann", "Koch", "Demir"],
    ethnicities: [
      ["White", 7],
      ["Middle Eastern", 2],
      ["Mixed", 1],
    ],
  },
  FR: {
    women: ["Manon", "Léa", "Chloé", "Inès", "Juliette", "Sarah", "Clara", "Amandine"],
    men: ["Lucas", "Louis", "Mathieu", "Karim", "Antoine", "Julien", "Nicolas", "Yanis"],
    neutral: ["Camille", "Dominique", "Sacha", "Charlie"],
    last: ["Bernard", "Petit", "Durand", "Leroy", "Lefebvre", "Mercier", "Haddad", "Girard"],
    ethnicities: [
      ["White", 6],
      ["Middle Eastern", 2],
      ["Black", 1],
      ["Mixed", 1],
    ],
  },
  ES: {
    women: ["María", "Paula", "Laura", "Marta", "Elena", "Irene", "Nerea", "Claudia"],
    men: ["Javier", "Sergio", "Adrián", "Álvaro", "Jorge", "Raúl", "Daniel", "Mario"],
    neutral: ["Alex", "Ariel", "Noa", "Andrea"],
    last: ["Martínez", "Sánchez", "Pérez", "Gómez", "Díaz", "Moreno", "Navarro", "Molina"],
    ethnicities: [
      ["White", 7],
      ["Hispanic / Latino", 2],
      ["Mixed", 1],
    ],
  },
  IT: {
    women: ["Sofia", "Martina", "Alessia", "Elena", "Sara", "Valentina", "Federica", "Giorgia"],
    men: ["Luca", "Matteo", "Alessandro", "Davide", "Giovanni", "Simone", "Stefano", "Andrea"],
    neutral: ["Andrea", "Gabriele", "Celeste", "Vale"],
    last: ["Rossi", "Russo", "Ferrari", "Colombo", "Bruno", "Gallo", "Conti", "Marino"],
    ethnicities: [
      ["White", 9],
      ["Mixed", 1],
    ],
  },
  BR: {
    women: ["Mariana", "Camila", "Larissa", "Fernanda", "Gabriela", "Letícia", "Bruna", "Aline"],
    men: ["Lucas", "Gabriel", "Pedro", "Matheus", "Bruno", "Felipe", "Leonardo", "João"],
    neutral: ["Ariel", "Cris", "Dani", "Luca"],
    last: ["Silva", "Pereira", "Almeida", "Ferreira", "Rodrigues", "Carvalho", "Gomes", "Ribeiro"],
    ethnicities: [
      ["Mixed", 4],
      ["White", 4],
      ["Black", 2],
    ],
  },
  IN: {
    women: ["Aditi", "Kavya", "Sneha", "Pooja", "Riya", "Divya", "Nandini", "Ishita"],
    men: ["Rohan", "Vikram", "Aditya", "Karthik", "Siddharth", "Rahul", "Varun", "Nikhil"],
    neutral: ["Kiran", "Ashwin", "Sasha", "Noor"],
    last: ["Sharma", "Reddy", "Gupta", "Rao", "Joshi", "Kapoor", "Menon", "Das"],
    ethnicities: [["South Asian", 1]],
  },
  JP: {
    women: ["Aoi", "Sakura", "Mei", "Yui", "Hana", "Misaki", "Rina", "Nanami"],
    men: ["Haruto", "Sota", "Yuto", "Daiki", "Kaito", "Shota", "Ryo", "Hiroshi"],
    neutral: ["Hikaru", "Makoto", "Akira", "Sora"],
    last: ["Suzuki", "Takahashi", "Watanabe", "Yamamoto", "Kato", "Yoshida", "Yamada", "Sasaki"],
    ethnicities: [["East Asian", 1]],
  },
  AU: {
    women: ["Olivia", "Isla", "Ruby", "Zoe", "Matilda", "Jess", "Georgia", "Mei"],
    men: ["Jack", "Noah", "Lachlan", "Cooper", "Riley", "Tom", "Hamish", "Kieran"],
    neutral: ["Frankie", "Jesse", "Sam", "Remy"],
    last: ["Smith", "Brown", "Taylor", "Anderson", "Kelly", "Murphy", "Tran", "Walker"],
    ethnicities: [
      ["White", 6],
      ["East Asian", 1],
      ["Southeast Asian", 1],
      ["Indigenous", 1],
      ["Mixed", 1],
    ],
  },
  CA: {
    women: ["Madison", "Chloé", "Sarah", "Olivia", "Léa", "Simran", "Hailey", "Jade"],
    men: ["Liam", "Mathis", "Owen", "Connor", "Félix", "Arjun", "Logan", "William"],
    neutral: ["Rowan", "Quinn", "Morgan", "Eli"],
    last: ["Roy", "Gagnon", "MacDonald", "Wong", "Côté", "Singh", "Martin", "Leblanc"],
    ethnicities: [
      ["White", 5],
      ["East Asian", 1],
      ["South Asian", 2],
      ["Indigenous", 1],
      ["Mixed", 1],
    ],
  },
  NG: {
    women: ["Ngozi", "Funmilayo", "Adaeze", "Zainab", "Temitope", "Amaka", "Halima", "Ifeoma"],
    men: ["Chinedu", "Oluwaseun", "Ibrahim", "Ikenna", "Femi", "Yusuf", "Obinna", "Segun"],
    neutral: ["Tobi", "Ayo", "Kene", "Dami"],
    last: ["Okeke", "Adebayo", "Abubakar", "Nwachukwu", "Balogun", "Okafor", "Ogunleye", "Eze"],
    ethnicities: [["Black", 1]],
  },
  MX: {
    women: ["Ximena", "Daniela", "Andrea", "Regina", "Paola", "Itzel", "Renata", "Alejandra"],
    men: ["Emiliano", "Carlos", "Luis", "Miguel", "Jorge", "Iván", "Rodrigo", "Alejandro"],
    neutral: ["Alex", "Guadalupe", "Cruz", "Dani"],
    last: ["González", "Rodríguez", "Flores", "Ramírez", "Mendoza", "Vargas", "Reyes", "Morales"],
    ethnicities: [
      ["Hispanic / Latino", 8],
      ["Indigenous", 2],
    ],
  },
  SE: {
    women: ["Maja", "Ebba", "Alva", "Wilma", "Klara", "Linnea", "Saga", "Nora"],
    men: ["Erik", "Lars", "Viktor", "Filip", "Axel", "Gustav", "Anton", "Elias"],
    neutral: ["Kim", "Robin", "Alex", "Love"],
    last: ["Andersson", "Karlsson", "Nilsson", "Eriksson", "Larsson", "Olsson", "Persson", "Ali"],
    ethnicities: [
      ["White", 8],
      ["Middle Eastern", 2],
    ],
  },
};

const OPENERS = [
  "Born and raised in {city}, and still not bored of it.",
  "Moved to {city} for a job, stayed for the people.",
  "{city} local with a soft spot for rainy Sundays.",
  "New-ish to {city} and keen to find the good spots.",
  "Weekday {job}, weekend explorer.",
  "I'm a {job} who takes fun more seriously than work.",
  "Somewhere between a homebody and an adventurer.",
  "Coffee first, then we talk.",
  "Recovering workaholic, learning to slow down.",
  "Ask my friends and they'll say I'm the one who always has snacks.",
];
const JOBS = [
  "nurse",
  "teacher",
  "accountant",
  "designer",
  "electrician",
  "student",
  "chef",
  "developer",
  "physiotherapist",
  "journalist",
  "pharmacist",
  "architect",
];
const MIDDLES = [
  "Most of my weekends involve {a} or {b}.",
  "Currently obsessed with {a}, forever loyal to {b}.",
  "I could talk about {a} for hours; {b} keeps me sane.",
  "Happy place: anywhere involving {a}. Guilty pleasure: {b}.",
  "Big fan of {a}, and slowly getting into {b}.",
  "My calendar is mostly {a}, with a side of {b}.",
];
const CLOSERS = [
  "Looking for someone kind with a good laugh.",
  "Tell me your favourite place to eat and why I'm wrong about mine.",
  "Honest, loyal, terrible at small talk.",
  "Let's skip the pen-pal phase and grab a drink.",
  "If you've read this far, say hi.",
  "Family and friends mean everything to me.",
  "Here for something real, but no rush.",
  "Bonus points if you can cook. I'll do the dishes.",
];

function ascii(value: string): string {
  return value
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/ı/g, "i")
    .replace(/[^A-Za-z0-9]/g, "")
    .toLowerCase();
}

const AGE_BANDS: [[number, number], number][] = [
  [[19, 24], 3],
  [[25, 34], 5],
  [[35, 44], 3],
  [[45, 54], 2],
  [[55, 65], 1],
];

/** The `index`-th extra member (index 0 is the first one after the roster). */
export function syntheticEntry(index: number): RosterEntry {
  const rng = new Random(`synthetic:${index}`);
  const countryCode = rng.pick(Object.keys(NAMES));
  const pool = NAMES[countryCode]!;
  const gender = rng.weighted<Gender>([
    ["woman", 46],
    ["man", 46],
    ["non-binary", 8],
  ]);
  const firstName = rng.pick(
    gender === "woman" ? pool.women : gender === "man" ? pool.men : pool.neutral,
  );
  const lastName = rng.pick(pool.last);
  const [low, high] = rng.weighted(AGE_BANDS);
  const [, stateCode, cityName] = rng.pick(allCities(countryCode));
  const interests = rng.sample(INTERESTS, rng.int(3, 6)) as Interest[];
  const preferences = rng.sample(PREFERENCES, rng.int(1, 3)) as Preference[];
  const suffix = String(index + 1);
  const base = `${ascii(firstName)}_${ascii(lastName)}`;
  const bio = [
    rng.pick(OPENERS).replace("{city}", cityName).replace("{job}", rng.pick(JOBS)),
    rng.pick(MIDDLES).replace("{a}", interests[0]!).replace("{b}", interests[1]!),
    rng.pick(CLOSERS),
  ].join(" ");
  return {
    username: `${base.slice(0, 29 - suffix.length)}_${suffix}`,
    firstName,
    lastName,
    gender,
    age: rng.int(low, high),
    ethnicity: rng.weighted(pool.ethnicities),
    at: [countryCode, stateCode, cityName],
    interests,
    preferences,
    bio,
  };
}
