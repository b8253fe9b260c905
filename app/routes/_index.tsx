import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { Icon, type IconName } from "~/components/icons";
import { AppLink } from "~/components/link";
import { AppShell } from "~/components/shell";
import type { HydrateHandle } from "~/lib/static-page";
import { titleMeta } from "~/lib/title";
import entryStyles from "~/styles/entry.css?url";

export const meta: MetaFunction = () => [
  ...titleMeta("Welcome"),
  {
    name: "description",
    content:
      "Heartline: meet people who share your interests, match, and chat in real time. For adults 18+.",
  },
];

export const links: LinksFunction = () => [{ rel: "stylesheet", href: entryStyles }];

/**
 * For a visitor who is not signed in, the welcome page is plain HTML and CSS, sent without the
 * app's scripts: most first visits begin here, on a phone with nothing cached, and everything on
 * it is a link. A signed-in member's header (notifications, live counts) needs them.
 */
export const handle: HydrateHandle<{ signedIn: boolean }> = {
  hydrate: (data) => data?.signedIn !== false,
};

export function loader({ context }: LoaderFunctionArgs) {
  return json({ signedIn: Boolean(context.user) });
}

/**
 * The illustration of the hero: two people's cards and their first messages, drawn with type and
 * shapes (members' photos are for members only, so no real faces appear on a public page).
 */
function HeroArt() {
  return (
    <div className="landing-art" aria-hidden="true">
      <div className="landing-card landing-card-a">
        <div className="landing-portrait tone-rose">
          <span className="landing-initial">L</span>
          <span className="landing-online">Online now</span>
        </div>
        <div className="landing-card-meta">
          <strong>Lina, 29</strong>
          <span>Lisbon</span>
          <span className="landing-chips">
            <span>Hiking</span>
            <span>Jazz</span>
            <span>Coffee</span>
          </span>
        </div>
      </div>
      <div className="landing-card landing-card-b">
        <div className="landing-portrait tone-violet">
          <span className="landing-initial">M</span>
        </div>
        <div className="landing-card-meta">
          <strong>Marco, 32</strong>
          <span>Porto</span>
          <span className="landing-chips">
            <span>Jazz</span>
            <span>Cooking</span>
          </span>
        </div>
      </div>
      <div className="landing-match">
        <Icon name="heart" size={18} /> It’s a match
      </div>
      <div className="landing-bubble landing-bubble-them">You like jazz too?</div>
      <div className="landing-bubble landing-bubble-me">Hot Clube on Saturday?</div>
    </div>
  );
}

const STEPS = [
  {
    title: "Make it yours",
    text: "A few photos, a line or two about you and what you love. It takes two minutes.",
  },
  {
    title: "Like who you like",
    text: "Browse people who share your interests, nearby or anywhere. When the like is mutual, it is a match.",
  },
  {
    title: "Say hello",
    text: "Chat in real time, with read receipts and typing, and a gift when words are not enough.",
  },
];

const FEATURES: { icon: IconName; title: string; text: string }[] = [
  {
    icon: "discover",
    title: "Matches that fit",
    text: "Search by interests, age and place, and see who is online right now.",
  },
  {
    icon: "chat",
    title: "Real-time chat",
    text: "Messages arrive the moment they are sent, with read receipts and typing indicators.",
  },
  {
    icon: "eyeOff",
    title: "Safe by design",
    text: "Verified emails, 18+ only, reports reviewed by people, and a block that makes you invisible, both ways.",
  },
  {
    icon: "heart",
    title: "Honest pricing",
    text: "Free to join, like and chat. Credits and subscriptions have clear prices and no surprises.",
  },
];

export default function WelcomePage() {
  const { signedIn } = useLoaderData<typeof loader>();
  const primary = signedIn ? (
    <AppLink to="/dashboard" className="btn btn-primary btn-lg">
      Go to your dashboard
    </AppLink>
  ) : (
    <AppLink to="/register" className="btn btn-primary btn-lg">
      Create your free account
    </AppLink>
  );
  return (
    <AppShell>
      <section className="landing-hero" aria-labelledby="landing-title">
        <div className="landing-hero-inner">
          <div className="landing-copy">
            <p className="landing-kicker">
              <Icon name="heart" size={16} /> Dating for people who like to talk
            </p>
            <h1 id="landing-title">
              Find someone who <em>gets you</em>.
            </h1>
            <p className="landing-lead">
              Heartline matches you on what you love, then lets you talk in real time. Free to join,
              for adults 18+, every member’s email verified.
            </p>
            <div className="landing-actions">
              {primary}
              {signedIn ? null : (
                <AppLink to="/login" className="btn btn-secondary btn-lg">
                  Sign in
                </AppLink>
              )}
            </div>
            <ul className="landing-proof">
              <li>Free to join</li>
              <li>18+ only</li>
              <li>Block means invisible</li>
            </ul>
          </div>
          <HeroArt />
        </div>
      </section>

      <section className="landing-section" aria-labelledby="how-title">
        <h2 id="how-title">From hello to a first date</h2>
        <ol className="landing-steps">
          {STEPS.map((s, i) => (
            <li key={s.title}>
              <span className="landing-step-number" aria-hidden="true">
                {i + 1}
              </span>
              <h3>{s.title}</h3>
              <p>{s.text}</p>
            </li>
          ))}
        </ol>
      </section>

      <section className="landing-section" aria-labelledby="why-title">
        <h2 id="why-title">Why members choose Heartline</h2>
        <div className="landing-features">
          {FEATURES.map((f) => (
            <article key={f.title} className="landing-feature">
              <span className="landing-feature-icon" aria-hidden="true">
                <Icon name={f.icon} />
              </span>
              <h3>{f.title}</h3>
              <p>{f.text}</p>
            </article>
          ))}
        </div>
        <p className="landing-safety">
          Meeting someone new? Read our <AppLink to="/safety">safety tips</AppLink> first.
        </p>
      </section>

      <section className="landing-cta" aria-labelledby="cta-title">
        <h2 id="cta-title">Your person might be online right now.</h2>
        <p>Join in two minutes. No card needed.</p>
        {primary}
      </section>
    </AppShell>
  );
}
