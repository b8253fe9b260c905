import type { PromptId } from "~/schemas/prompt-catalog";
import type { Ethnicity, Gender, Interest, Preference } from "./vocabulary";

/** One answer to a prompt of Heartline's catalog, as a profile stores it. */
export interface RosterPrompt {
  prompt_id: PromptId;
  /** 1–300 characters, already trimmed (app/schemas/prompts.ts). */
  answer: string;
}

/** One hand-written demo member; everything else about them (ids, dates, photos) is derived. */
export interface RosterEntry {
  username: string;
  firstName: string;
  lastName: string;
  gender: Gender;
  /** Age on the day the seed runs (the date of birth is worked out from it). */
  age: number;
  ethnicity: Ethnicity;
  /** [country ISO code, state ISO code, city name], a city of ./locations.ts. */
  at: [string, string, string];
  interests: Interest[];
  preferences: Preference[];
  bio: string;
  /**
   * One to three answers to the profile prompts, in the member's voice, each prompt once. Every
   * hand-written member has them (tests/unit/roster-prompts.test.ts); generated members
   * (./synthetic.ts) have none.
   */
  prompts?: RosterPrompt[];
}

/** The demo account's own profile (its email and password are in ./demo-account.ts). */
export const DEMO_PROFILE: RosterEntry = {
  username: "demo",
  firstName: "Robin",
  lastName: "Hart",
  gender: "woman",
  age: 31,
  ethnicity: "Mixed",
  at: ["GB", "ENG", "London"],
  interests: ["coffee", "hiking", "cooking", "photography", "live music", "travel"],
  preferences: ["Long-term relationship", "Friendship"],
  bio: "Londoner, product designer, weekend potter with a wonky-mug collection to prove it. Happiest at a Saturday market with a flat white, or somewhere with a view at the end of a long walk. I'm here for something real. Tell me about the last thing that made you laugh out loud.",
  prompts: [
    {
      prompt_id: "weekend-plan",
      answer:
        "Broadway Market by ten with a flat white, then the afternoon at the pottery studio making yet another mug that leans slightly to the left. Dinner with friends if anyone is free.",
    },
    {
      prompt_id: "last-laugh",
      answer:
        "My pottery teacher holding up my latest bowl and asking, very kindly, whether it was meant to be an ashtray.",
    },
    {
      prompt_id: "first-date-idea",
      answer:
        "A walk along the canal with coffee to go, ending somewhere with a view or a good pub. If we're still talking, I know a little place for dinner.",
    },
  ],
};

export const ROSTER: readonly RosterEntry[] = [
  // United States
  {
    username: "maya_okafor",
    firstName: "Maya",
    lastName: "Okafor",
    gender: "woman",
    age: 29,
    ethnicity: "Black",
    at: ["US", "NY", "Brooklyn"],
    interests: ["cooking", "board games", "street food", "travel", "podcasts"],
    preferences: ["Long-term relationship"],
    bio: "Nigerian-American, Brooklyn by way of Houston. I work in public health and spend my weekends hunting for the best jollof in the five boroughs (current ranking available on request). Looking for someone kind, curious and a little bit competitive at board games.",
    prompts: [
      {
        prompt_id: "unpopular-opinion",
        answer:
          "Jollof is a main course, not a side. And the smoky bit from the bottom of the party pot is the best part. I will bring evidence.",
      },
      {
        prompt_id: "together-we-could",
        answer:
          "Eat our way through every West African spot in the five boroughs, then argue about the rankings over a very competitive game of Catan.",
      },
    ],
  },
  {
    username: "tyler_brooks",
    firstName: "Tyler",
    lastName: "Brooks",
    gender: "man",
    age: 34,
    ethnicity: "White",
    at: ["US", "CO", "Denver"],
    interests: ["skiing", "hiking", "dogs", "camping", "cooking"],
    preferences: ["Long-term relationship", "Casual dating"],
    bio: "Ski patrol in winter, trail crew in summer, dog dad all year. Rocky (70 lb of pure goofball) will probably like you before I do. I make a mean green chile and I'm always up for a sunrise hike if you can handle a 4:30 alarm.",
    prompts: [
      {
        prompt_id: "comfort-meal",
        answer:
          "Green chile stew, simmered all afternoon, with tortillas warmed right on the burner. Rocky will sit on your feet in case you drop something.",
      },
      {
        prompt_id: "sunday-morning",
        answer:
          "On a trail above 10,000 feet watching the sun come up, then pancakes the size of my head on the drive home.",
      },
      {
        prompt_id: "green-flag",
        answer:
          "You're kind to servers and you don't flinch when a muddy dog leans his whole weight on you.",
      },
    ],
  },
  {
    username: "sofia_ramirez",
    firstName: "Sofia",
    lastName: "Ramirez",
    gender: "woman",
    age: 24,
    ethnicity: "Hispanic / Latino",
    at: ["US", "CA", "Los Angeles"],
    interests: ["salsa", "dancing", "street food", "photography", "cinema"],
    preferences: ["Casual dating", "Friendship"],
    bio: "grad student by day, salsa dancer by night 💃 i will absolutely drag you to a taco truck at midnight. tell me your most controversial food opinion",
    prompts: [
      {
        prompt_id: "unpopular-opinion",
        answer:
          "al pastor is a little overrated and suadero deserves way more love. happy to settle this at a taco truck at midnight",
      },
      {
        prompt_id: "never-miss",
        answer: "dance. even if it's just salsa in the kitchen while the rice cooks",
      },
    ],
  },
  {
    username: "daniel_kim",
    firstName: "Daniel",
    lastName: "Kim",
    gender: "man",
    age: 38,
    ethnicity: "East Asian",
    at: ["US", "WA", "Seattle"],
    interests: ["coffee", "history", "piano", "reading", "architecture"],
    preferences: ["Long-term relationship"],
    bio: "Software engineer who would rather be building furniture. I brew too much coffee, read mostly history, and I'm slowly learning piano at an age when that's mildly embarrassing. Divorced, no kids, still on good terms with my ex's cat.",
    prompts: [
      {
        prompt_id: "learning-now",
        answer:
          "Piano. Eight months in, I can almost get through a Chopin nocturne without stopping. My neighbours are very patient people.",
      },
      {
        prompt_id: "dream-job",
        answer:
          "In a woodshop with good light, building tables people will eat at for forty years, with a pot of pour-over on the bench.",
      },
    ],
  },
  {
    username: "river_jensen",
    firstName: "River",
    lastName: "Jensen",
    gender: "non-binary",
    age: 27,
    ethnicity: "White",
    at: ["US", "OR", "Portland"],
    interests: ["vinyl", "gardening", "crafts", "live music", "cycling"],
    preferences: ["Friendship", "Open to anything"],
    bio: "they/them. ceramicist, plant hoarder, terrible at texting back but great at showing up. the used vinyl bins on Hawthorne are basically my church. friends first and we'll see where it goes 🌱",
    prompts: [
      {
        prompt_id: "local-spot",
        answer:
          "the used bins at the record shops on Hawthorne, ideally on a rainy tuesday when nobody else is digging",
      },
      {
        prompt_id: "love-language",
        answer:
          "you show up. bring soup when i'm sick, help me repot the monstera, sit on the floor and listen to a whole album with me",
      },
    ],
  },
  {
    username: "marcus_bell",
    firstName: "Marcus",
    lastName: "Bell",
    gender: "man",
    age: 45,
    ethnicity: "Black",
    at: ["US", "GA", "Atlanta"],
    interests: ["basketball", "cooking", "history", "jazz", "road trips"],
    preferences: ["Long-term relationship", "Marriage"],
    bio: "Father of two great teenagers, high school history teacher, and the loudest guy at any Hawks game. I cook Sunday dinner every week and there's always an extra plate. Ready for something real with someone who laughs easily.",
    prompts: [
      {
        prompt_id: "talk-for-hours",
        answer:
          "The civil rights history of this city. Walk down Auburn Avenue with me and I'll keep you there all afternoon.",
      },
      {
        prompt_id: "comfort-meal",
        answer:
          "Smothered chicken, collards, my grandmother's mac and cheese and a peach cobbler. Sunday dinner at my house is an event.",
      },
      {
        prompt_id: "friends-say",
        answer:
          "Loyal, loud at ball games, and the first one to turn up with a folding table when you're moving house.",
      },
    ],
  },
  {
    username: "linda_morales",
    firstName: "Linda",
    lastName: "Morales",
    gender: "woman",
    age: 58,
    ethnicity: "Hispanic / Latino",
    at: ["US", "TX", "Austin"],
    interests: ["guitar", "road trips", "dancing", "gardening", "volunteering"],
    preferences: ["Long-term relationship", "Friendship"],
    bio: "Retired nurse, newly empty-nested and finally doing everything I put off: Spanish guitar lessons, a road trip to every state park in Texas, and saying yes more often. Widowed six years. I'd love a companion for dinners, two-stepping and long conversations on the porch.",
    prompts: [
      {
        prompt_id: "learning-now",
        answer:
          "Spanish guitar. My teacher is twenty-six and very patient with me. I can play one song all the way through now, and I play it for everybody.",
      },
      {
        prompt_id: "next-trip",
        answer:
          "Big Bend Ranch in the spring, for the wildflowers and the stars. It's the next state park on my list and I saved the best for last.",
      },
    ],
  },
  {
    username: "priya_nair",
    firstName: "Priya",
    lastName: "Nair",
    gender: "woman",
    age: 31,
    ethnicity: "South Asian",
    at: ["US", "CA", "San Francisco"],
    interests: ["baking", "travel", "reading", "dogs", "yoga"],
    preferences: ["Long-term relationship"],
    bio: "Product designer, amateur baker, and the friend who plans the group trip. Currently perfecting sourdough (it's humbling). Dealbreaker: you don't like dogs. Bonus points if you can recommend a sci-fi novel I haven't read.",
    prompts: [
      {
        prompt_id: "book-or-film",
        answer:
          "The Left Hand of Darkness. I finished it on a long flight and sat at the gate afterwards not wanting to move. Now tell me yours.",
      },
      {
        prompt_id: "small-joy",
        answer:
          "A sourdough loaf with a proper ear on it. It happens maybe one bake in four, so I take a photo every single time.",
      },
    ],
  },

  // United Kingdom
  {
    username: "ollie_bennett",
    firstName: "Oliver",
    lastName: "Bennett",
    gender: "man",
    age: 30,
    ethnicity: "White",
    at: ["GB", "ENG", "Manchester"],
    interests: ["football", "architecture", "cooking", "karaoke", "live music"],
    preferences: ["Long-term relationship", "Casual dating"],
    bio: "Manchester lad, City season ticket, no apologies. I work in architecture, which mostly means I'll stop and point at buildings on our walk. Decent cook, awful singer, will do karaoke anyway.",
    prompts: [
      {
        prompt_id: "go-to-karaoke",
        answer:
          "Don't Look Back in Anger. I can't sing it, but by the second chorus the whole room is singing it for me.",
      },
      {
        prompt_id: "local-spot",
        answer:
          "The top deck of the tram into town at dusk, when the old mills and the new towers light up together. Yes, I will point at buildings.",
      },
    ],
  },
  {
    username: "amara_osei",
    firstName: "Amara",
    lastName: "Osei",
    gender: "woman",
    age: 26,
    ethnicity: "Black",
    at: ["GB", "ENG", "London"],
    interests: ["museums", "baking", "live music", "travel", "fashion"],
    preferences: ["Long-term relationship"],
    bio: "Londoner with Ghanaian roots. Junior doctor, so my rota is chaos, but I'll make time for the right person (and a good brunch). I love galleries, my gospel choir and anything involving a pastry.",
    prompts: [
      {
        prompt_id: "how-i-recharge",
        answer:
          "Gospel choir on a Thursday night. Two hours of singing and whatever happened on the ward that week is gone.",
      },
      {
        prompt_id: "simple-pleasures",
        answer:
          "A warm pastry from the bakery on my way home from a night shift, eaten on the bus before anyone can judge me.",
      },
      {
        prompt_id: "first-date-idea",
        answer:
          "A late opening at a gallery, then brunch food even if it's 8pm. I'm flexible about mealtimes because my rota isn't.",
      },
    ],
  },
  {
    username: "fiona_mcleod",
    firstName: "Fiona",
    lastName: "McLeod",
    gender: "woman",
    age: 42,
    ethnicity: "White",
    at: ["GB", "SCT", "Edinburgh"],
    interests: ["swimming", "reading", "hiking", "coffee", "writing"],
    preferences: ["Long-term relationship"],
    bio: "Wild swimmer, bookshop owner, mum to one excellent eight-year-old. I'm happiest in a cold loch at 7am followed by a very large coffee. Looking for someone grounded who doesn't mind a bit of mud on the walking boots.",
    prompts: [
      {
        prompt_id: "sunday-morning",
        answer:
          "In Wardie Bay before anyone sensible is up, then thawing out on the sea wall with a flask of coffee and a bacon roll.",
      },
      {
        prompt_id: "book-or-film",
        answer:
          "I own a bookshop, so this is an impossible question. Today's answer is Life After Life by Kate Atkinson. Ask me again tomorrow.",
      },
    ],
  },
  {
    username: "raj_patel",
    firstName: "Raj",
    lastName: "Patel",
    gender: "man",
    age: 36,
    ethnicity: "South Asian",
    at: ["GB", "ENG", "Bristol"],
    interests: ["coffee", "cricket", "board games", "cooking", "travel"],
    preferences: ["Long-term relationship"],
    bio: "Bristol via Leicester. I run a small coffee roastery and will talk about it far too much if you let me. Cricket in summer, board games in winter, my nan's dal all year round. Looking for a partner in crime for weekend trips to the coast.",
    prompts: [
      {
        prompt_id: "ask-me-about",
        answer:
          "Why your coffee tastes of burnt toast, and how to fix it in about ten seconds. Sorry in advance, I did warn you.",
      },
      {
        prompt_id: "comfort-meal",
        answer:
          "My nan's tarka dal with jeera rice. She still says I use too much garlic, and she is still wrong.",
      },
      {
        prompt_id: "together-we-could",
        answer:
          "Drive to the coast on a Saturday, walk the cliff path, then argue over a board game in the pub until they kick us out.",
      },
    ],
  },
  {
    username: "sam_evans",
    firstName: "Sam",
    lastName: "Evans",
    gender: "non-binary",
    age: 23,
    ethnicity: "White",
    at: ["GB", "WLS", "Cardiff"],
    interests: ["painting", "live music", "languages", "video games", "fashion"],
    preferences: ["Friendship", "Casual dating"],
    bio: "they/them ✨ illustrator, gig goer, collector of slightly haunted charity shop finds. Welsh speaker, happy to teach you the swear words first. mostly here to meet cool people but open to more",
    prompts: [
      {
        prompt_id: "two-truths",
        answer:
          "I once drew a whole album sleeve for a band from Swansea. I own a painting whose eyes follow you round the room. I've never been to a gig on my own.",
      },
      {
        prompt_id: "ask-me-about",
        answer:
          "the slightly haunted portrait of a dog in a bow tie I found in a charity shop in Canton ✨ he has a name and a full backstory",
      },
    ],
  },
  {
    username: "graham_hughes",
    firstName: "Graham",
    lastName: "Hughes",
    gender: "man",
    age: 61,
    ethnicity: "White",
    at: ["GB", "ENG", "Brighton"],
    interests: ["sailing", "motorcycles", "vinyl", "cooking", "jazz"],
    preferences: ["Long-term relationship", "Friendship"],
    bio: "Semi-retired sound engineer. I've toured with bands you've heard of and plenty you definitely haven't. These days I sail, fix up old motorbikes and make a decent curry. Divorced, two grown-up daughters who made me write this.",
    prompts: [
      {
        prompt_id: "travel-story",
        answer:
          "Three weeks on a tour bus across America in 1989, mixing a band in a different town every night and sleeping in a bunk the size of a coffin.",
      },
      {
        prompt_id: "how-i-recharge",
        answer:
          "Out on the water off Shoreham with the engine off, or in the garage with an old Triumph in bits and a Coltrane record on.",
      },
    ],
  },

  // Germany
  {
    username: "lena_schmidt",
    firstName: "Lena",
    lastName: "Schmidt",
    gender: "woman",
    age: 27,
    ethnicity: "White",
    at: ["DE", "BE", "Berlin"],
    interests: ["climbing", "languages", "cycling", "live music", "coffee"],
    preferences: ["Casual dating", "Long-term relationship"],
    bio: "Berlin, but not the techno kind (okay, sometimes). I teach German to newcomers, climb three times a week and think the best dates involve a Späti beer and a long walk along the canal.",
    prompts: [
      {
        prompt_id: "first-date-idea",
        answer:
          "A Späti beer and a long walk along the Landwehrkanal. If it goes well, the bouldering gym next weekend.",
      },
      {
        prompt_id: "best-advice",
        answer:
          "One of my students told me: say the sentence wrong, but say it. It works for languages and for most other things.",
      },
    ],
  },
  {
    username: "jonas_weber",
    firstName: "Jonas",
    lastName: "Weber",
    gender: "man",
    age: 33,
    ethnicity: "White",
    at: ["DE", "BY", "Munich"],
    interests: ["skiing", "hiking", "baking", "cycling", "photography"],
    preferences: ["Long-term relationship"],
    bio: "Mechanical engineer, mountain person, Sunday baker of slightly lopsided pretzels. In winter I'm on skis every weekend I can get. I'd like to meet someone who's up for adventures but also for very lazy mornings.",
    prompts: [
      {
        prompt_id: "hidden-talent",
        answer:
          "I can twist a pretzel in about four seconds. They still come out lopsided, just faster.",
      },
      {
        prompt_id: "sunday-morning",
        answer:
          "In the kitchen with flour on my shirt and my coffee going cold, in no hurry at all. Those are the lazy mornings I mean.",
      },
    ],
  },
  {
    username: "elif_yilmaz",
    firstName: "Elif",
    lastName: "Yılmaz",
    gender: "woman",
    age: 30,
    ethnicity: "Middle Eastern",
    at: ["DE", "HH", "Hamburg"],
    interests: ["live music", "tea", "travel", "cooking", "photography"],
    preferences: ["Long-term relationship", "Marriage"],
    bio: "Hamburg girl, Turkish family, very loud opinions about how çay should be brewed. Pharmacist who spends way too much on concert tickets. Looking for someone honest who can keep up with my family at Bayram dinners.",
    prompts: [
      {
        prompt_id: "unpopular-opinion",
        answer:
          "Çay from a tea bag is not çay. It needs a double teapot, some time and some patience, and I will happily teach you.",
      },
      {
        prompt_id: "song-on-repeat",
        answer:
          "Whatever band I'm seeing next, so I can sing every word. I spend far too much on tickets and I regret nothing.",
      },
      {
        prompt_id: "looking-for-someone",
        answer:
          "Is honest even when it's awkward, and can hold their own when my whole family talks at once at Bayram dinner.",
      },
    ],
  },
  {
    username: "felix_braun",
    firstName: "Felix",
    lastName: "Braun",
    gender: "man",
    age: 21,
    ethnicity: "White",
    at: ["DE", "SN", "Leipzig"],
    interests: ["chess", "vinyl", "cinema", "coffee", "cycling"],
    preferences: ["Casual dating", "Friendship"],
    bio: "Studying sociology in Leipzig and DJing on the side. Chess nerd, record digger, very average cook. Let's get a coffee and argue about films.",
    prompts: [
      {
        prompt_id: "book-or-film",
        answer:
          "Stalker by Tarkovsky. I saw it at nineteen and I still think about that room. Happy to argue about it over coffee.",
      },
      {
        prompt_id: "never-miss",
        answer:
          "Dig through a crate of old records at a flea market. It's mostly terrible Schlager, which is half the fun.",
      },
    ],
  },
  {
    username: "kai_nowak",
    firstName: "Kai",
    lastName: "Nowak",
    gender: "non-binary",
    age: 35,
    ethnicity: "White",
    at: ["DE", "NW", "Köln"],
    interests: ["theatre", "cats", "board games", "fashion", "dancing"],
    preferences: ["Long-term relationship", "Open to anything"],
    bio: "Kai, 35, Köln. Theatre technician, part-time drag make-up artist, full-time parent to a cat called Mausi. I like rooftop evenings, silly board games and people who say what they mean.",
    prompts: [
      {
        prompt_id: "hidden-talent",
        answer:
          "I can do a full drag face in forty minutes, lashes included. Yours too, if you ask nicely.",
      },
      {
        prompt_id: "pet-peeve",
        answer:
          "People who say maybe when they mean no. Just tell me, I'll survive. Mausi has taught me a lot about honest rejection.",
      },
    ],
  },

  // France
  {
    username: "camille_laurent",
    firstName: "Camille",
    lastName: "Laurent",
    gender: "woman",
    age: 32,
    ethnicity: "White",
    at: ["FR", "IDF", "Paris"],
    interests: ["wine", "cinema", "languages", "reading", "cooking"],
    preferences: ["Long-term relationship"],
    bio: "Paris, 11e. Literary translator, so I'll probably correct your French (gently). I love natural wine, Sunday markets and films without happy endings. Looking for something serious, with someone who still flirts.",
    prompts: [
      {
        prompt_id: "book-or-film",
        answer:
          "Cléo de 5 à 7. Ninety minutes in Paris with a woman waiting for news, and I notice something new every time I watch it.",
      },
      {
        prompt_id: "sunday-morning",
        answer:
          "At the marché d'Aligre with a basket, buying more cheese than two people could ever eat, then a glass of something natural at noon.",
      },
    ],
  },
  {
    username: "hugo_martin",
    firstName: "Hugo",
    lastName: "Martin",
    gender: "man",
    age: 28,
    ethnicity: "White",
    at: ["FR", "ARA", "Lyon"],
    interests: ["cooking", "running", "street food", "karaoke", "travel"],
    preferences: ["Casual dating", "Long-term relationship"],
    bio: "Chef de partie in Lyon. Yes, I'll cook for you; no, not on the first date. Trail running, rugby on TV and an embarrassing love of 2000s pop.",
    prompts: [
      {
        prompt_id: "go-to-karaoke",
        answer: "Toxic by Britney, with the full choreography. This is not negotiable.",
      },
      {
        prompt_id: "comfort-meal",
        answer:
          "Not on the first date, I said. But on the third: quenelles with sauce Nantua the way my chef taught me, and a tarte aux pralines.",
      },
    ],
  },
  {
    username: "nadia_benali",
    firstName: "Nadia",
    lastName: "Benali",
    gender: "woman",
    age: 37,
    ethnicity: "Middle Eastern",
    at: ["FR", "PAC", "Marseille"],
    interests: ["sailing", "architecture", "cooking", "swimming", "crafts"],
    preferences: ["Long-term relationship"],
    bio: "Marseillaise, raised between the sea and my grandmother's kitchen. Architect. I sail at the weekends and I'm learning ceramics. Separated, one son (10). I'm looking for a kind man with a good sense of humour.",
    prompts: [
      {
        prompt_id: "local-spot",
        answer:
          "The calanque of Sormiou early in the morning, before the boats arrive. The water there is a colour I have never managed to draw.",
      },
      {
        prompt_id: "comfort-meal",
        answer:
          "My grandmother's chorba, and a lamb tajine with prunes. I learned both standing on a chair next to her stove.",
      },
    ],
  },
  {
    username: "theo_dubois",
    firstName: "Théo",
    lastName: "Dubois",
    gender: "man",
    age: 19,
    ethnicity: "White",
    at: ["FR", "NAQ", "Bordeaux"],
    interests: ["surfing", "guitar", "history", "camping"],
    preferences: ["Friendship", "Casual dating"],
    bio: "Étudiant en histoire. Surf à Lacanau dès que je peux, guitare le reste du temps. Here to meet people, practise my English, and maybe more 🙂",
    prompts: [
      {
        prompt_id: "weekend-plan",
        answer:
          "Surf at Lacanau if the waves are good, guitar around a fire on the beach if they're not. Both, on the best days.",
      },
    ],
  },
  {
    username: "sylvie_moreau",
    firstName: "Sylvie",
    lastName: "Moreau",
    gender: "woman",
    age: 55,
    ethnicity: "White",
    at: ["FR", "OCC", "Toulouse"],
    interests: ["gardening", "theatre", "hiking", "wine", "travel"],
    preferences: ["Long-term relationship", "Friendship"],
    bio: "Pharmacist and a grandmother (too young for it, I know). I spend my free time in the garden, at the theatre or exploring villages in the Pyrenees. I'd like to meet a gentle, cultured man to share good meals and some travels with.",
    prompts: [
      {
        prompt_id: "simple-pleasures",
        answer:
          "Tomatoes still warm from the garden, with a little salt and olive oil, eaten standing up in the kitchen.",
      },
      {
        prompt_id: "together-we-could",
        answer:
          "Drive up into the Pyrenees, find a village with one café and no plan, and come back down in time for the theatre.",
      },
    ],
  },

  // Spain
  {
    username: "lucia_fernandez",
    firstName: "Lucía",
    lastName: "Fernández",
    gender: "woman",
    age: 26,
    ethnicity: "White",
    at: ["ES", "MD", "Madrid"],
    interests: ["dancing", "travel", "languages", "photography", "street food"],
    preferences: ["Long-term relationship", "Casual dating"],
    bio: "Madrileña. Teacher of tiny humans (six-year-olds, send help). Flamenco class on Tuesdays, vermut on Sundays. Me encanta viajar: 23 countries and counting.",
    prompts: [
      {
        prompt_id: "last-laugh",
        answer:
          "One of my six-year-olds asked if I was alive when the dinosaurs were. Then, very kindly: maybe just the small ones?",
      },
      {
        prompt_id: "travel-story",
        answer:
          "Lost in the medina in Fez for four hours, then adopted for lunch by a family who would not let me leave without seconds.",
      },
      {
        prompt_id: "never-miss",
        answer:
          "Have a vermut at noon on a Sunday in La Latina. In Madrid it's practically a religion.",
      },
    ],
  },
  {
    username: "pablo_garcia",
    firstName: "Pablo",
    lastName: "García",
    gender: "man",
    age: 35,
    ethnicity: "White",
    at: ["ES", "CT", "Barcelona"],
    interests: ["surfing", "climbing", "cooking", "yoga", "travel"],
    preferences: ["Long-term relationship"],
    bio: "Physio in Barcelona. I surf at Barceloneta when the sea lets me (rarely) and climb when it doesn't. Bad at small talk, great at long dinners. Looking for a partner, not a pen pal.",
    prompts: [
      {
        prompt_id: "green-flag",
        answer:
          "You'd rather meet for a long dinner than text for weeks. Bonus points if you stretch after climbing.",
      },
      {
        prompt_id: "how-i-recharge",
        answer:
          "Climbing in Montserrat when the sea is flat, which is most weekends. Then a long, slow dinner with friends.",
      },
    ],
  },
  {
    username: "carmen_ruiz",
    firstName: "Carmen",
    lastName: "Ruiz",
    gender: "woman",
    age: 48,
    ethnicity: "White",
    at: ["ES", "AN", "Sevilla"],
    interests: ["poetry", "dancing", "wine", "reading", "theatre"],
    preferences: ["Long-term relationship", "Marriage"],
    bio: "Sevillana de toda la vida. Lawyer, mother of two, owner of the noisiest parrot in Triana. I love the Feria, poetry and a good debate over tapas. Looking for a confident man who also knows how to listen.",
    prompts: [
      {
        prompt_id: "hidden-talent",
        answer:
          "I can recite most of Lorca by heart. My parrot knows a few lines too, although he mostly shouts my daughter's name.",
      },
      {
        prompt_id: "looking-for-someone",
        answer:
          "Can hold a good argument over tapas and then, just as important, knows when to stop and listen.",
      },
    ],
  },
  {
    username: "iker_etxeberria",
    firstName: "Iker",
    lastName: "Etxeberria",
    gender: "man",
    age: 29,
    ethnicity: "White",
    at: ["ES", "PV", "Bilbao"],
    interests: ["hiking", "football", "street food", "cooking", "cycling"],
    preferences: ["Long-term relationship", "Casual dating"],
    bio: "Bilbaíno. Civil engineer, pelota player, self-appointed pintxos expert. Mountains on Saturdays, Athletic on Sundays, always. If you can handle rain and strong opinions about tortilla, we'll get along.",
    prompts: [
      {
        prompt_id: "unpopular-opinion",
        answer: "Tortilla without onion is just a potato omelette. I said what I said.",
      },
      {
        prompt_id: "local-spot",
        answer:
          "The Casco Viejo on a Friday evening, a pintxo and a txakoli in every bar. I have an opinion on all of them.",
      },
    ],
  },
  {
    username: "alex_romero",
    firstName: "Alex",
    lastName: "Romero",
    gender: "non-binary",
    age: 24,
    ethnicity: "Mixed",
    at: ["ES", "VC", "Valencia"],
    interests: ["video games", "anime", "coffee", "painting", "swimming"],
    preferences: ["Friendship", "Casual dating"],
    bio: "Valencia ☀️ elle/they. Barista and comic artist. Beach at sunset, paella debates, co-op games until 3am. Looking for my people.",
    prompts: [
      {
        prompt_id: "guilty-pleasure",
        answer:
          "Staying up until 3am to finish a co-op game with friends, then pulling perfect espressos at 8 like nothing happened.",
      },
      {
        prompt_id: "unpopular-opinion",
        answer:
          "Paella valenciana has chicken, rabbit and garrofó beans, and never chorizo. This is the hill I will draw my comic on.",
      },
    ],
  },

  // Italy
  {
    username: "giulia_romano",
    firstName: "Giulia",
    lastName: "Romano",
    gender: "woman",
    age: 30,
    ethnicity: "White",
    at: ["IT", "25", "Milan"],
    interests: ["fashion", "reading", "travel", "wine", "yoga"],
    preferences: ["Long-term relationship"],
    bio: "Milanese, fashion buyer, secretly a homebody. Best version of me: a Sunday on Lake Como with a book and an Aperol. I value honesty, ambition and a man who can make a proper carbonara (no cream. ever.)",
    prompts: [
      {
        prompt_id: "perfect-evening",
        answer:
          "Pyjamas, a good novel, a risotto alla milanese and my phone on silent. Fashion week makes enough noise for the whole year.",
      },
      {
        prompt_id: "simple-pleasures",
        answer:
          "A Sunday on Lake Como with a book and an Aperol spritz, and nobody asking me about next season.",
      },
    ],
  },
  {
    username: "marco_esposito",
    firstName: "Marco",
    lastName: "Esposito",
    gender: "man",
    age: 40,
    ethnicity: "White",
    at: ["IT", "72", "Naples"],
    interests: ["cooking", "running", "football", "dogs"],
    preferences: ["Long-term relationship", "Marriage"],
    bio: "Napoletano verace. I own a small pizzeria near the Quartieri Spagnoli, so yes, I will judge your pizza order. Two marathons finished, one rescue dog adopted, Napoli fan forever.",
    prompts: [
      {
        prompt_id: "proud-of",
        answer:
          "Two marathons finished, and Totò, the rescue dog who now sleeps on my bed like he paid for it.",
      },
      {
        prompt_id: "pet-peeve",
        answer:
          "People who leave the crust on the plate. The cornicione is the best part, I made it with love.",
      },
    ],
  },
  {
    username: "chiara_bianchi",
    firstName: "Chiara",
    lastName: "Bianchi",
    gender: "woman",
    age: 22,
    ethnicity: "White",
    at: ["IT", "45", "Bologna"],
    interests: ["cycling", "live music", "fashion", "science", "coffee"],
    preferences: ["Casual dating", "Friendship"],
    bio: "studentessa di medicina, 22. indie concerts, vintage markets and cycling under Bologna's porticoes. looking for someone to study (and not study) with 📚",
    prompts: [
      {
        prompt_id: "weekend-plan",
        answer:
          "vintage market in the morning, a bike ride under the porticoes up to San Luca, an indie gig at night. studying can wait until sunday",
      },
      {
        prompt_id: "learning-now",
        answer:
          "anatomy, all of it, every single bone. ask me the name of any bone in your hand, i dare you",
      },
    ],
  },
  {
    username: "lorenzo_ricci",
    firstName: "Lorenzo",
    lastName: "Ricci",
    gender: "man",
    age: 52,
    ethnicity: "White",
    at: ["IT", "52", "Florence"],
    interests: ["painting", "wine", "history", "museums", "cooking"],
    preferences: ["Long-term relationship"],
    bio: "Florentine, restorer of old paintings and even older furniture. Weekends in Chianti with friends and a good bottle. Widower, two grown sons. I'd like to share the second half with someone warm and curious.",
    prompts: [
      {
        prompt_id: "dream-job",
        answer:
          "Exactly what I do now, restoring old paintings, but with a window over the Arno and no deadlines.",
      },
      {
        prompt_id: "best-advice",
        answer:
          "My old master told me: the painting will tell you when to stop. Most things in life are the same.",
      },
      {
        prompt_id: "together-we-could",
        answer:
          "Spend a slow weekend in Chianti, walk from village to village and end every day at a long table with friends.",
      },
    ],
  },
  {
    username: "francesca_greco",
    firstName: "Francesca",
    lastName: "Greco",
    gender: "woman",
    age: 36,
    ethnicity: "White",
    at: ["IT", "82", "Palermo"],
    interests: ["swimming", "sailing", "science", "street food", "photography"],
    preferences: ["Long-term relationship", "Open to anything"],
    bio: "Palermitana, marine biologist. I dive, I sail, I have one-sided conversations with octopuses. Life is short and the granita is cold. Looking for someone who loves the sea as much as I do.",
    prompts: [
      {
        prompt_id: "talk-for-hours",
        answer:
          "Octopuses. Three hearts, blue blood and better problem-solving skills than some of my colleagues.",
      },
      {
        prompt_id: "simple-pleasures",
        answer:
          "Granita di gelsi with a warm brioche for breakfast in August. It's a Palermo rule and I follow it strictly.",
      },
    ],
  },

  // Brazil
  {
    username: "ana_souza",
    firstName: "Ana",
    lastName: "Souza",
    gender: "woman",
    age: 27,
    ethnicity: "Mixed",
    at: ["BR", "SP", "São Paulo"],
    interests: ["dancing", "running", "gardening", "dogs", "coffee"],
    preferences: ["Long-term relationship", "Casual dating"],
    bio: "Paulistana, UX researcher, mãe de 40 plantas. Samba on Fridays, long runs around Ibirapuera on Sundays. Quero alguém leve, bem-humorado e que goste de cachorro 🐶",
    prompts: [
      {
        prompt_id: "sunday-morning",
        answer:
          "Running loops around Ibirapuera, then an açaí on the grass and a slow walk home. Domingo perfeito.",
      },
      {
        prompt_id: "small-joy",
        answer: "A new leaf unfolding on one of my forty plants. Yes, I notice every single one 🌿",
      },
    ],
  },
  {
    username: "rafael_oliveira",
    firstName: "Rafael",
    lastName: "Oliveira",
    gender: "man",
    age: 31,
    ethnicity: "Black",
    at: ["BR", "RJ", "Rio de Janeiro"],
    interests: ["surfing", "live music", "swimming", "football", "travel"],
    preferences: ["Casual dating", "Long-term relationship"],
    bio: "Carioca, surf teacher and weekend samba percussionist. I basically grew up on the rocks at Arpoador. Looking for someone easy-going to watch sunsets with, who won't judge my açaí habit.",
    prompts: [
      {
        prompt_id: "local-spot",
        answer:
          "The rocks at Arpoador at sunset, when the whole beach claps for the sun going down. Nowhere else does that.",
      },
      {
        prompt_id: "hidden-talent",
        answer:
          "I can play almost any instrument in a samba bateria, and a frying pan with two spoons if that's all there is.",
      },
    ],
  },
  {
    username: "juliana_costa",
    firstName: "Juliana",
    lastName: "Costa",
    gender: "woman",
    age: 44,
    ethnicity: "White",
    at: ["BR", "RS", "Porto Alegre"],
    interests: ["reading", "tea", "travel", "wine", "yoga"],
    preferences: ["Long-term relationship"],
    bio: "Gaúcha, psychologist, mother of a teenage daughter who rolls her eyes at this app. I love chimarrão, crime novels and weekend trips up to the Serra. Looking for a mature man who is emotionally available (the rarest kind).",
    prompts: [
      {
        prompt_id: "love-language",
        answer:
          "Someone remembers what I told them last week and asks how it went. Small attention is the biggest thing.",
      },
      {
        prompt_id: "book-or-film",
        answer:
          "Anything by Tana French. I read crime novels the way other people watch series: always one chapter too many.",
      },
    ],
  },
  {
    username: "thiago_santos",
    firstName: "Thiago",
    lastName: "Santos",
    gender: "man",
    age: 25,
    ethnicity: "Mixed",
    at: ["BR", "BA", "Salvador"],
    interests: ["dancing", "boxing", "swimming", "street food", "live music"],
    preferences: ["Casual dating", "Friendship"],
    bio: "Soteropolitano 🌴 capoeira since I was eight, studying engineering now. Axé, acarajé and the Bahian sea. Good vibes and real conversation only.",
    prompts: [
      {
        prompt_id: "never-miss",
        answer:
          "Join a roda de capoeira when I pass one in the street. Seventeen years of it and I still get butterflies.",
      },
    ],
  },
  {
    username: "beatriz_lima",
    firstName: "Beatriz",
    lastName: "Lima",
    gender: "woman",
    age: 62,
    ethnicity: "Mixed",
    at: ["BR", "MG", "Belo Horizonte"],
    interests: ["reading", "volunteering", "baking", "travel", "poetry"],
    preferences: ["Friendship", "Long-term relationship"],
    bio: "Retired literature teacher. Mineira, so there is always pão de queijo in the oven. I volunteer at a community library, sing in a choir and travel whenever my knees allow. I would love a gentle companion for coffee, music and good conversation.",
    prompts: [
      {
        prompt_id: "kindness",
        answer:
          "A student I taught thirty years ago found me and brought me the first copy of her novel. I cried right there in the bakery.",
      },
      {
        prompt_id: "comfort-meal",
        answer:
          "Pão de queijo fresh from the oven and frango com quiabo the way my mother made it. Food from Minas is an embrace.",
      },
      {
        prompt_id: "best-advice",
        answer:
          "Read a little every day, especially on the hard days. My grandmother told me that, and she was never wrong.",
      },
    ],
  },

  // India
  {
    username: "ananya_iyer",
    firstName: "Ananya",
    lastName: "Iyer",
    gender: "woman",
    age: 28,
    ethnicity: "South Asian",
    at: ["IN", "KA", "Bengaluru"],
    interests: ["hiking", "coffee", "science", "live music", "travel"],
    preferences: ["Long-term relationship", "Marriage"],
    bio: "Data scientist by profession, Carnatic vocalist at heart. Weekends mean filter coffee, a trek in the Western Ghats or a very long brunch. I want a partner who is kind, ambitious and not scared of my mother.",
    prompts: [
      {
        prompt_id: "hidden-talent",
        answer:
          "Fifteen years of Carnatic music training. Ask nicely and I might sing, but only after the second filter coffee.",
      },
      {
        prompt_id: "weekend-plan",
        answer:
          "An early trek in the Western Ghats, a very long brunch after, and a concert in the evening if I still have the energy.",
      },
    ],
  },
  {
    username: "arjun_mehta",
    firstName: "Arjun",
    lastName: "Mehta",
    gender: "man",
    age: 32,
    ethnicity: "South Asian",
    at: ["IN", "MH", "Mumbai"],
    interests: ["cricket", "cooking", "cinema", "road trips", "photography"],
    preferences: ["Long-term relationship"],
    bio: "Mumbai boy, ad-film producer. Chaotic job, calm person. Sunday morning cricket at Shivaji Park and a surprisingly good biryani. Looking for someone who enjoys long drives to Lonavala and even longer conversations.",
    prompts: [
      {
        prompt_id: "comfort-meal",
        answer:
          "Mutton biryani, dum style, the pot sealed with dough. It takes four hours and I will tell you about every one of them.",
      },
      {
        prompt_id: "together-we-could",
        answer:
          "Drive to Lonavala in the monsoon with the windows down, stop for vada pav and cutting chai, and talk the whole way.",
      },
      {
        prompt_id: "last-laugh",
        answer:
          "A client asked us to make the sunset more orange but also less orange. We did. He loved it.",
      },
    ],
  },
  {
    username: "kabir_singh",
    firstName: "Kabir",
    lastName: "Singh",
    gender: "man",
    age: 26,
    ethnicity: "South Asian",
    at: ["IN", "DL", "New Delhi"],
    interests: ["comedy", "architecture", "street food", "live music", "guitar"],
    preferences: ["Casual dating", "Long-term relationship"],
    bio: "Architect, part-time stand-up (badly). Big on street food crawls in Chandni Chowk and gigs in Hauz Khas. Swipe right if you have a favourite chaat wala and will defend them.",
    prompts: [
      {
        prompt_id: "talk-for-hours",
        answer:
          "Old Delhi's havelis and why nobody builds courtyards any more. Also chaat. Mostly chaat.",
      },
      {
        prompt_id: "proud-of",
        answer:
          "I once got a laugh at an open mic from a table of uncles who had clearly come for someone else. Peak career.",
      },
    ],
  },
  {
    username: "meera_krishnan",
    firstName: "Meera",
    lastName: "Krishnan",
    gender: "woman",
    age: 39,
    ethnicity: "South Asian",
    at: ["IN", "TN", "Chennai"],
    interests: ["dancing", "reading", "meditation", "yoga", "volunteering"],
    preferences: ["Long-term relationship", "Marriage"],
    bio: "Bharatanatyam dancer and school principal. Divorced, one daughter (12) who is my whole world. I love Besant Nagar beach early in the morning, classical music and slow Sundays. Looking for maturity and kindness above everything.",
    prompts: [
      {
        prompt_id: "sunday-morning",
        answer:
          "On Besant Nagar beach at six, before the city wakes up. Then a slow breakfast with my daughter and Carnatic music playing.",
      },
      {
        prompt_id: "proud-of",
        answer:
          "My daughter's first dance performance last year. She was braver on that stage than I ever was at her age.",
      },
    ],
  },
  {
    username: "noor_sen",
    firstName: "Noor",
    lastName: "Sen",
    gender: "non-binary",
    age: 29,
    ethnicity: "South Asian",
    at: ["IN", "WB", "Kolkata"],
    interests: ["poetry", "writing", "tea", "painting", "cinema"],
    preferences: ["Long-term relationship", "Friendship"],
    bio: "Poet, book illustrator, permanent resident of the College Street bookstalls. Fluent in Bengali, English and sarcasm. Queer, they/them. Tea over coffee, always, and I will not be taking questions.",
    prompts: [
      {
        prompt_id: "local-spot",
        answer:
          "The bookstalls of College Street, then the Indian Coffee House for a cup of tea I'll complain about, because I'm loyal.",
      },
      {
        prompt_id: "unpopular-opinion",
        answer:
          "Tea is better than coffee in every way that matters. I'm not here to debate, I'm here to be correct.",
      },
      {
        prompt_id: "two-truths",
        answer:
          "I've illustrated eleven children's books. I once wrote a whole poem on a tram ticket. I can parallel park.",
      },
    ],
  },

  // Japan
  {
    username: "yuki_tanaka",
    firstName: "Yuki",
    lastName: "Tanaka",
    gender: "woman",
    age: 29,
    ethnicity: "East Asian",
    at: ["JP", "13", "Tokyo"],
    interests: ["video games", "cats", "karaoke", "coffee", "anime"],
    preferences: ["Long-term relationship"],
    bio: "Illustrator at a game studio in Tokyo. I love quiet cafés, cats, onsen trips and karaoke with friends (90s songs only). My English is okay, my Japanese is better! Looking for a serious relationship.",
    prompts: [
      {
        prompt_id: "go-to-karaoke",
        answer:
          "Anything by Namie Amuro from the 90s. My friends know to give me the mic and step back.",
      },
      {
        prompt_id: "perfect-evening",
        answer:
          "A hot bath, a sketchbook, my cat sitting exactly on the page I'm drawing on, and rain outside.",
      },
    ],
  },
  {
    username: "kenji_sato",
    firstName: "Kenji",
    lastName: "Sato",
    gender: "man",
    age: 35,
    ethnicity: "East Asian",
    at: ["JP", "27", "Osaka"],
    interests: ["cooking", "cycling", "travel", "comedy"],
    preferences: ["Long-term relationship", "Marriage"],
    bio: "Osaka guy, so I'm contractually obliged to be funny. Sushi chef, Tigers fan, weekend cyclist. I've been to 30 countries and I still think Osaka food wins.",
    prompts: [
      {
        prompt_id: "travel-story",
        answer:
          "A week eating my way through Lima. I came home with serious questions about my own ceviche.",
      },
      {
        prompt_id: "unpopular-opinion",
        answer:
          "Osaka food beats Tokyo food. Thirty countries later, I will still defend this in any izakaya.",
      },
    ],
  },
  {
    username: "haruka_ito",
    firstName: "Haruka",
    lastName: "Ito",
    gender: "woman",
    age: 24,
    ethnicity: "East Asian",
    at: ["JP", "26", "Kyoto"],
    interests: ["tea", "photography", "meditation", "history", "hiking"],
    preferences: ["Friendship", "Long-term relationship"],
    bio: "Tea ceremony teacher and part-time photographer. Early morning walks to the temples before the tourists wake up are my favourite thing. I'd like to practise English and meet someone gentle.",
    prompts: [
      {
        prompt_id: "simple-pleasures",
        answer:
          "Walking to a temple at six in the morning with my camera, when only the monks and the crows are awake.",
      },
      {
        prompt_id: "learning-now",
        answer:
          "English, every day. I read one short story a week and write down every word I don't know. Please be patient with me!",
      },
    ],
  },
  {
    username: "takumi_nakamura",
    firstName: "Takumi",
    lastName: "Nakamura",
    gender: "man",
    age: 42,
    ethnicity: "East Asian",
    at: ["JP", "01", "Sapporo"],
    interests: ["skiing", "jazz", "camping", "cooking"],
    preferences: ["Long-term relationship"],
    bio: "I run a ski rental shop in winter and a small craft beer bar in summer. Divorced, one son. I like powder snow, old jazz records and people who don't take themselves too seriously.",
    prompts: [
      {
        prompt_id: "song-on-repeat",
        answer:
          "Waltz for Debby, Bill Evans. I play the record in the bar every night at closing time, and nobody has complained yet.",
      },
    ],
  },
  {
    username: "ren_kobayashi",
    firstName: "Ren",
    lastName: "Kobayashi",
    gender: "non-binary",
    age: 21,
    ethnicity: "East Asian",
    at: ["JP", "40", "Fukuoka"],
    interests: ["fashion", "anime", "street food", "live music", "photography"],
    preferences: ["Friendship", "Casual dating"],
    bio: "ren / fukuoka / 21 🌸 fashion student, thrift fanatic, tonkotsu snob. looking for friends to go to shows with, and maybe someone special",
    prompts: [
      {
        prompt_id: "local-spot",
        answer:
          "the yatai stalls by the river in nakasu at night. best tonkotsu in the world and no, i won't tell you my favourite stall (ok maybe)",
      },
      {
        prompt_id: "dream-job",
        answer:
          "running my own little vintage shop, mixing old kimono fabric with 90s streetwear. i already have the name",
      },
    ],
  },

  // Australia
  {
    username: "chloe_wilson",
    firstName: "Chloe",
    lastName: "Wilson",
    gender: "woman",
    age: 27,
    ethnicity: "White",
    at: ["AU", "NSW", "Sydney"],
    interests: ["swimming", "dogs", "road trips", "running", "street food"],
    preferences: ["Long-term relationship"],
    bio: "Bondi local, vet nurse, early riser. You'll find me at the ocean pool at 6am and asleep by 9pm. Big on dogs, dumplings and road trips up the coast. Looking for someone who's got their life sorted (mostly).",
    prompts: [
      {
        prompt_id: "sunday-morning",
        answer:
          "Laps in the ocean pool at 6am, a coffee on the sand, then home for a nap. I'm asleep by nine anyway.",
      },
      {
        prompt_id: "first-date-idea",
        answer:
          "Dumplings in Haymarket, then a walk. Early, obviously. A 5:30 dinner booking is my idea of romance.",
      },
    ],
  },
  {
    username: "liam_nguyen",
    firstName: "Liam",
    lastName: "Nguyen",
    gender: "man",
    age: 31,
    ethnicity: "Southeast Asian",
    at: ["AU", "VIC", "Melbourne"],
    interests: ["coffee", "science", "football", "cooking", "basketball"],
    preferences: ["Long-term relationship", "Casual dating"],
    bio: "Vietnamese-Aussie, high school science teacher, AFL tragic (go Pies). According to my mum I make the best phở in Footscray, and she's never wrong. Let's get coffee somewhere with an unreasonably long queue.",
    prompts: [
      {
        prompt_id: "comfort-meal",
        answer:
          "Phở from scratch, bones simmered overnight, the way Mum taught me. She'll still tell you hers is better.",
      },
      {
        prompt_id: "last-laugh",
        answer:
          "A Year 8 student asked if the Bunsen burner was on airplane mode. I still think about it.",
      },
    ],
  },
  {
    username: "tahlia_roberts",
    firstName: "Tahlia",
    lastName: "Roberts",
    gender: "woman",
    age: 34,
    ethnicity: "Indigenous",
    at: ["AU", "QLD", "Brisbane"],
    interests: ["painting", "camping", "volunteering", "hiking", "live music"],
    preferences: ["Long-term relationship"],
    bio: "Proud Kamilaroi woman living in Brisbane. I work in community health, paint on the weekends and I'm always keen for a camping trip. Family matters a lot to me. Looking for someone genuine.",
    prompts: [
      {
        prompt_id: "how-i-recharge",
        answer:
          "Painting on the back deck with music on, or a weekend camping out west where you can actually see the stars.",
      },
      {
        prompt_id: "kindness",
        answer:
          "My aunty drove eight hours to sit with me after a rough week and didn't ask a single question. She just made tea.",
      },
    ],
  },
  {
    username: "ethan_clarke",
    firstName: "Ethan",
    lastName: "Clarke",
    gender: "man",
    age: 47,
    ethnicity: "White",
    at: ["AU", "WA", "Perth"],
    interests: ["fishing", "sailing", "cooking", "camping"],
    preferences: ["Long-term relationship"],
    bio: "Mining engineer on a FIFO roster, two weeks on and two off, which means when I'm home I'm really home. Fishing, sailing, barbecues at the beach. Divorced, two kids. After a best mate and a partner.",
    prompts: [
      {
        prompt_id: "weekend-plan",
        answer:
          "Out on the boat at first light chasing dhufish, back by lunch, and a barbecue at Cottesloe with the kids by sundown.",
      },
      {
        prompt_id: "green-flag",
        answer:
          "You're comfortable with a bit of time apart. Two weeks away is easy when both people have full lives.",
      },
    ],
  },
  {
    username: "harper_mitchell",
    firstName: "Harper",
    lastName: "Mitchell",
    gender: "woman",
    age: 58,
    ethnicity: "White",
    at: ["AU", "TAS", "Hobart"],
    interests: ["baking", "hiking", "gardening", "dogs", "reading"],
    preferences: ["Long-term relationship", "Friendship"],
    bio: "Retired from teaching, now I run a little bakery two days a week and go bushwalking the other five. Grandkids, a very old kelpie and a garden full of dahlias. Seeking a fellow adventurer in his fifties or sixties.",
    prompts: [
      {
        prompt_id: "proud-of",
        answer:
          "My dahlias. Forty-two varieties, and one of them took second prize at the Hobart Show. Don't get me started.",
      },
      {
        prompt_id: "weekend-plan",
        answer:
          "The bakery till lunchtime, then a slow walk up kunanyi with the kelpie (he's fourteen) and home to the garden.",
      },
      {
        prompt_id: "looking-for-someone",
        answer:
          "Still likes a proper adventure, whether it's a week on the Overland Track or a new café across town.",
      },
    ],
  },

  // Canada
  {
    username: "emilie_tremblay",
    firstName: "Émilie",
    lastName: "Tremblay",
    gender: "woman",
    age: 29,
    ethnicity: "White",
    at: ["CA", "QC", "Montréal"],
    interests: ["jazz", "video games", "skiing", "languages", "cinema"],
    preferences: ["Long-term relationship", "Casual dating"],
    bio: "Montréalaise, bilingue. Sound designer for video games. I live for jazz festival season, bagels in the snow and cross-country skiing on Mont-Royal. Je cherche quelqu'un de drôle et de curieux.",
    prompts: [
      {
        prompt_id: "small-joy",
        answer: "A warm sesame bagel from Saint-Viateur at midnight in the snow. Ça règle tout.",
      },
      {
        prompt_id: "ask-me-about",
        answer:
          "What a sword sounds like in a video game. It's usually a cabbage, a stick of celery and me hitting both in a studio.",
      },
    ],
  },
  {
    username: "harry_gill",
    firstName: "Harpreet",
    lastName: "Gill",
    gender: "man",
    age: 33,
    ethnicity: "South Asian",
    at: ["CA", "BC", "Vancouver"],
    interests: ["hiking", "cooking", "ice hockey", "travel"],
    preferences: ["Long-term relationship"],
    bio: "Everyone calls me Harry. Paramedic, so I'm calm in a crisis and useless at choosing a restaurant. Hiking the North Shore, beer-league hockey (badly), feeding my friends. Looking for something long term.",
    prompts: [
      {
        prompt_id: "friends-say",
        answer:
          "Calm in a crisis, hopeless at choosing a restaurant, and always the one who brings too much food to the potluck.",
      },
      {
        prompt_id: "together-we-could",
        answer:
          "Hike the Grouse Grind, complain the whole way up, then argue about where to eat for longer than the hike took.",
      },
    ],
  },
  {
    username: "ava_campbell",
    firstName: "Ava",
    lastName: "Campbell",
    gender: "woman",
    age: 22,
    ethnicity: "White",
    at: ["CA", "NS", "Halifax"],
    interests: ["science", "coffee", "camping", "board games", "swimming"],
    preferences: ["Friendship", "Casual dating"],
    bio: "halifax 🌊 marine bio student, barista, aspiring kayak guide. super outdoorsy but also love a cozy night in with a 1000-piece puzzle. looking for friends and maybe something more",
    prompts: [
      {
        prompt_id: "perfect-evening",
        answer:
          "a 1000-piece puzzle, a pot of tea, rain on the window and someone who doesn't mind me hoarding all the edge pieces",
      },
      {
        prompt_id: "next-trip",
        answer:
          "kayaking in gros morne. i want to paddle a fjord and see a minke whale up close (respectfully)",
      },
    ],
  },
  {
    username: "ryan_chen",
    firstName: "Ryan",
    lastName: "Chen",
    gender: "man",
    age: 37,
    ethnicity: "East Asian",
    at: ["CA", "ON", "Toronto"],
    interests: ["basketball", "photography", "street food", "travel"],
    preferences: ["Long-term relationship", "Marriage"],
    bio: "Corporate lawyer who would rather talk about anything but law. Raptors season tickets, Korean BBQ enthusiast, amateur street photographer. I'm looking for a partner to build a life with.",
    prompts: [
      {
        prompt_id: "ask-me-about",
        answer:
          "Anything but law. Try basketball, the best Korean barbecue on Bloor, or the street photo I waited two hours for.",
      },
      {
        prompt_id: "looking-for-someone",
        answer:
          "Wants to build a life together: slow Sunday brunches, a dog eventually, and a team to yell at on TV.",
      },
    ],
  },
  {
    username: "dakota_morin",
    firstName: "Dakota",
    lastName: "Morin",
    gender: "non-binary",
    age: 41,
    ethnicity: "Indigenous",
    at: ["CA", "AB", "Calgary"],
    interests: ["crafts", "hiking", "volunteering", "dancing", "camping"],
    preferences: ["Long-term relationship"],
    bio: "Métis and two-spirit. I'm a social worker and a beadwork artist, happiest in the mountains or at a round dance. Looking for someone who values community, honesty and a good laugh.",
    prompts: [
      {
        prompt_id: "proud-of",
        answer:
          "The beaded moccasins I made for my niece's first powwow. Every bead took longer than I'll admit.",
      },
      {
        prompt_id: "how-i-recharge",
        answer:
          "A quiet day in Kananaskis, or an evening of beadwork with a pot of tea and my aunties' stories.",
      },
    ],
  },

  // Nigeria
  {
    username: "chioma_eze",
    firstName: "Chioma",
    lastName: "Eze",
    gender: "woman",
    age: 28,
    ethnicity: "Black",
    at: ["NG", "LA", "Lagos"],
    interests: ["dancing", "fashion", "live music", "travel", "cooking"],
    preferences: ["Long-term relationship", "Marriage"],
    bio: "Lagos babe 💛 fintech product manager, Afrobeats on repeat, jollof wars veteran (Nigerian, obviously). I love beach days in Lekki and rooftop dinners. Looking for a God-fearing man with ambition and a sense of humour.",
    prompts: [
      {
        prompt_id: "song-on-repeat",
        answer:
          "Whatever Burna Boy released last. I dance while I cook and I dance at my desk, so my colleagues have seen things.",
      },
      {
        prompt_id: "unpopular-opinion",
        answer:
          "Nigerian jollof wins, every single time. Ghanaians are welcome to come and argue over a plate of mine.",
      },
      {
        prompt_id: "looking-for-someone",
        answer:
          "Has ambition, loves God and laughs easily. Extra points if you'll dance with me at every wedding we're invited to.",
      },
    ],
  },
  {
    username: "tunde_adeyemi",
    firstName: "Babatunde",
    lastName: "Adeyemi",
    gender: "man",
    age: 34,
    ethnicity: "Black",
    at: ["NG", "OY", "Ibadan"],
    interests: ["chess", "football", "jazz", "reading"],
    preferences: ["Marriage", "Long-term relationship"],
    bio: "Tunde to my friends. Paediatrician by day, chess hustler at the weekend. I enjoy Fela, football and long debates. Family-oriented and looking for a partner I can build a home with.",
    prompts: [
      {
        prompt_id: "hidden-talent",
        answer:
          "I can play five games of blitz chess at once in the park and win at least three. The other two, I let them have.",
      },
      {
        prompt_id: "best-advice",
        answer:
          "From my father: listen to understand, not to reply. I'm still practising it during football debates.",
      },
    ],
  },
  {
    username: "aisha_bello",
    firstName: "Aisha",
    lastName: "Bello",
    gender: "woman",
    age: 25,
    ethnicity: "Black",
    at: ["NG", "FC", "Abuja"],
    interests: ["architecture", "painting", "poetry", "museums", "photography"],
    preferences: ["Long-term relationship"],
    bio: "Architect in training, sketchbook always in my bag. I love art exhibitions, poetry nights and quiet drives. Soft-spoken until you get me started on design.",
    prompts: [
      {
        prompt_id: "perfect-evening",
        answer:
          "A poetry night, then a quiet drive with the windows down and my sketchbook on my lap in case something catches my eye.",
      },
      {
        prompt_id: "childhood-dream",
        answer:
          "An architect, from the day I built a whole city out of cereal boxes. I'm nearly there now.",
      },
    ],
  },
  {
    username: "emeka_okonkwo",
    firstName: "Emeka",
    lastName: "Okonkwo",
    gender: "man",
    age: 50,
    ethnicity: "Black",
    at: ["NG", "EN", "Enugu"],
    interests: ["travel", "live music", "cooking", "football"],
    preferences: ["Marriage", "Long-term relationship"],
    bio: "Businessman, widower and father of three wonderful adults. I enjoy highlife music, travelling and a good bowl of ofe nsala. Looking for a mature, kind woman to share life's next chapter with.",
    prompts: [
      {
        prompt_id: "song-on-repeat",
        answer:
          "Osondi Owendi by Osita Osadebe. It takes me back to my father's parlour on Sunday afternoons.",
      },
      {
        prompt_id: "looking-for-someone",
        answer:
          "Is mature, kind and still curious about the world. I'd like to travel again, with good company this time.",
      },
    ],
  },
  {
    username: "kelechi_obi",
    firstName: "Kelechi",
    lastName: "Obi",
    gender: "man",
    age: 29,
    ethnicity: "Black",
    at: ["NG", "RI", "Port Harcourt"],
    interests: ["boxing", "football", "street food", "video games"],
    preferences: ["Long-term relationship", "Casual dating"],
    bio: "PH city. Petroleum engineer by day, amateur boxer by night 🥊 Straightforward, loyal and always up for good suya. Let's talk.",
    prompts: [
      {
        prompt_id: "friends-say",
        answer:
          "Straightforward and loyal. If I say I'll be there, I'm there, usually with suya for everybody.",
      },
    ],
  },

  // Mexico
  {
    username: "valeria_hernandez",
    firstName: "Valeria",
    lastName: "Hernández",
    gender: "woman",
    age: 26,
    ethnicity: "Hispanic / Latino",
    at: ["MX", "CDMX", "Ciudad de México"],
    interests: ["cycling", "dancing", "street food", "painting", "museums"],
    preferences: ["Casual dating", "Long-term relationship"],
    bio: "Diseñadora gráfica, taquera de corazón. Weekends are for the markets in Coyoacán, biking Reforma on Sunday mornings and dancing cumbia badly. Looking for someone to explore the city with.",
    prompts: [
      {
        prompt_id: "sunday-morning",
        answer:
          "Biking down Reforma while it's closed to cars, then tacos de canasta and a nap in the park.",
      },
      {
        prompt_id: "local-spot",
        answer:
          "The market in Coyoacán, for the quesadillas and the people-watching. Half the vendors are in my sketchbook by now.",
      },
      {
        prompt_id: "learning-now",
        answer: "To dance cumbia without counting out loud. Progress is slow, but very joyful.",
      },
    ],
  },
  {
    username: "diego_lopez",
    firstName: "Diego",
    lastName: "López",
    gender: "man",
    age: 30,
    ethnicity: "Hispanic / Latino",
    at: ["MX", "JAL", "Guadalajara"],
    interests: ["football", "video games", "road trips", "guitar"],
    preferences: ["Long-term relationship"],
    bio: "Tapatío, software developer, grandson of a mariachi (I can't sing, sorry abuelo). Tequila tastings, five-a-side with friends, long weekends at Lake Chapala. Looking for a serious relationship with someone who loves family.",
    prompts: [
      {
        prompt_id: "childhood-dream",
        answer:
          "A mariachi like my abuelo. Then I heard myself sing and decided software was safer for everyone.",
      },
      {
        prompt_id: "weekend-plan",
        answer:
          "Five-a-side in the morning, a long lunch with the whole family at my grandmother's, and the evening by Lake Chapala.",
      },
    ],
  },
  {
    username: "mariana_torres",
    firstName: "Mariana",
    lastName: "Torres",
    gender: "woman",
    age: 39,
    ethnicity: "Hispanic / Latino",
    at: ["MX", "NLE", "Monterrey"],
    interests: ["yoga", "hiking", "languages", "meditation", "travel"],
    preferences: ["Long-term relationship"],
    bio: "Entrepreneur (a small chain of yoga studios) and mom of one. I hike Cerro de la Silla every weekend and I'm learning French. Looking for a man who is stable, active and loves to laugh.",
    prompts: [
      {
        prompt_id: "learning-now",
        answer:
          "French, for a trip to Lyon I've promised myself. Je parle un peu, mais lentement, très lentement.",
      },
      {
        prompt_id: "green-flag",
        answer:
          "You have your own routines and passions, and you want to share them, not give them up.",
      },
    ],
  },
  {
    username: "santiago_cruz",
    firstName: "Santiago",
    lastName: "Cruz",
    gender: "man",
    age: 57,
    ethnicity: "Indigenous",
    at: ["MX", "OAX", "Oaxaca"],
    interests: ["crafts", "cooking", "history", "hiking", "live music"],
    preferences: ["Long-term relationship", "Friendship"],
    bio: "Oaxaqueño. I make mezcal the way my grandfather did and teach weaving workshops in the summer. Divorced, four grandchildren. I'd like to meet a woman who enjoys simple things: good food, music and the mountains.",
    prompts: [
      {
        prompt_id: "best-advice",
        answer:
          "My grandfather said: the agave takes eight years, so don't rush anything that matters. I still make mezcal his way.",
      },
      {
        prompt_id: "simple-pleasures",
        answer:
          "Tlayudas on the comal, my grandchildren running around the patio, and the mountains turning purple at sundown.",
      },
    ],
  },
  {
    username: "fer_castillo",
    firstName: "Fernanda",
    lastName: "Castillo",
    gender: "woman",
    age: 20,
    ethnicity: "Hispanic / Latino",
    at: ["MX", "YUC", "Mérida"],
    interests: ["swimming", "travel", "coffee", "dancing", "languages"],
    preferences: ["Friendship"],
    bio: "fer 🌺 estudiante de turismo. cenotes, k-pop and iced coffee. i want to see the whole world someday. here for friends and good conversations",
    prompts: [
      {
        prompt_id: "next-trip",
        answer:
          "seoul!! i've been planning it for two years and i already have a playlist and a very long list of cafés",
      },
      {
        prompt_id: "small-joy",
        answer:
          "jumping into a cenote when it's 38 degrees outside. the cold hits and everything is perfect 🌺",
      },
    ],
  },

  // Sweden
  {
    username: "elsa_lindqvist",
    firstName: "Elsa",
    lastName: "Lindqvist",
    gender: "woman",
    age: 31,
    ethnicity: "White",
    at: ["SE", "AB", "Stockholm"],
    interests: ["swimming", "writing", "coffee", "sailing", "baking"],
    preferences: ["Long-term relationship"],
    bio: "UX writer, fika enthusiast, cold-water swimmer (yes, even in January). I like long dinners, Scandi noir and summers in the archipelago. Looking for someone warm, since the weather isn't.",
    prompts: [
      {
        prompt_id: "unpopular-opinion",
        answer:
          "Fika is not a coffee break, it's a basic human right. And cardamom buns beat cinnamon buns, always.",
      },
      {
        prompt_id: "how-i-recharge",
        answer:
          "A cold swim off the rocks, a hot sauna after, then Scandi noir under a blanket with a bun.",
      },
    ],
  },
  {
    username: "oskar_johansson",
    firstName: "Oskar",
    lastName: "Johansson",
    gender: "man",
    age: 36,
    ethnicity: "White",
    at: ["SE", "O", "Göteborg"],
    interests: ["climbing", "cooking", "guitar", "live music", "vinyl"],
    preferences: ["Long-term relationship"],
    bio: "Sound engineer and dad to a six-year-old who decides our weekends (lots of Liseberg). I cook, I climb, and I play bass in a band that will never be famous. Looking for a partner with a big laugh.",
    prompts: [
      {
        prompt_id: "friends-say",
        answer:
          "The one who cooks for everyone and then forgets to eat because he's talking. Also, apparently, too into bass lines.",
      },
      {
        prompt_id: "kindness",
        answer:
          "A stranger on the tram fixed my son's broken toy with a hair tie and some tape. It saved our whole afternoon.",
      },
    ],
  },
  {
    username: "amir_hassan",
    firstName: "Amir",
    lastName: "Hassan",
    gender: "man",
    age: 28,
    ethnicity: "Middle Eastern",
    at: ["SE", "M", "Malmö"],
    interests: ["running", "chess", "street food", "travel", "photography"],
    preferences: ["Long-term relationship", "Casual dating"],
    bio: "Born in Damascus, grew up in Malmö. Nurse, runner, mediocre chess player. I love trying new restaurants and I'm always planning my next trip. Looking for something real.",
    prompts: [
      {
        prompt_id: "next-trip",
        answer:
          "Georgia. Tbilisi for the food, then the mountains around Kazbegi for the running. The spreadsheet is already made.",
      },
      {
        prompt_id: "comfort-meal",
        answer:
          "My mother's kibbeh with yogurt and a big salad. Still not as good as hers, but I'm getting closer.",
      },
      {
        prompt_id: "love-language",
        answer:
          "Someone says: I found a new restaurant, let's go. Planning things together is how I feel close to someone.",
      },
    ],
  },
  {
    username: "sanna_berg",
    firstName: "Sanna",
    lastName: "Berg",
    gender: "woman",
    age: 65,
    ethnicity: "White",
    at: ["SE", "C", "Uppsala"],
    interests: ["skiing", "reading", "gardening", "science", "hiking"],
    preferences: ["Friendship", "Long-term relationship"],
    bio: "Retired after forty years of teaching biology. Now: birdwatching, cross-country skiing, my choir and my grandchildren. Widowed. Looking for good company, a hand to hold on walks and someone who reads.",
    prompts: [
      {
        prompt_id: "never-miss",
        answer:
          "Go out with my binoculars when the cranes come back to Hornborgasjön in April. It never stops feeling like a small miracle.",
      },
      {
        prompt_id: "book-or-film",
        answer:
          "The Moomin books, read aloud to my grandchildren. I suspect I enjoy them more than they do.",
      },
    ],
  },
];
