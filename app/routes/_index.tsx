import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { AppLink } from "~/components/link";
import { AppShell } from "~/components/shell";
import { titleMeta } from "~/lib/title";

export const meta: MetaFunction = () => [
  ...titleMeta("Welcome"),
  {
    name: "description",
    content:
      "Heartline: meet people who share your interests, match, and chat in real time. For adults 18+.",
  },
];

export function loader({ context }: LoaderFunctionArgs) {
  return json({ signedIn: Boolean(context.user) });
}

function Silhouette() {
  return (
    <svg viewBox="0 0 100 90" aria-hidden="true">
      <circle cx="50" cy="32" r="20" fill="rgba(255,255,255,.85)" />
      <path d="M10 90c0-24 18-38 40-38s40 14 40 38z" fill="rgba(255,255,255,.85)" />
    </svg>
  );
}

const FEATURES = [
  {
    icon: "♥",
    title: "Matches that fit",
    text: "Search by interests, age and place. When you both like each other, it is a match.",
  },
  {
    icon: "✦",
    title: "Real-time chat",
    text: "Messages arrive the moment they are sent, with read receipts and typing indicators.",
  },
  {
    icon: "🛡",
    title: "Safe by design",
    text: "Verified emails, 18+ only, and a block that makes you invisible to them, both ways.",
  },
  {
    icon: "◎",
    title: "Honest pricing",
    text: "Free to join. Credits and subscriptions with clear prices and no surprises.",
  },
];

export default function WelcomePage() {
  const { signedIn } = useLoaderData<typeof loader>();
  return (
    <AppShell>
      <section className="hero">
        <div className="hero-inner">
          <div>
            <h1>
              Meet someone who <em>gets you</em>.
            </h1>
            <p className="lead">
              Heartline is where adults find people who share their interests, then talk in real
              time. Thousands of members across the world, online right now.
            </p>
            <div className="hero-actions">
              {signedIn ? (
                <AppLink to="/dashboard" className="btn btn-primary">
                  Go to your dashboard
                </AppLink>
              ) : (
                <>
                  <AppLink to="/register" className="btn btn-primary">
                    Create a free account
                  </AppLink>
                  <AppLink to="/login" className="btn btn-secondary">
                    Sign in
                  </AppLink>
                </>
              )}
            </div>
          </div>
          <div className="hero-visual" aria-hidden="true">
            <div className="hero-card">
              <div className="portrait">
                <Silhouette />
              </div>
              <div className="meta">
                <strong>Lina, 29</strong>
                <div className="muted">Lisbon · hiking, jazz</div>
              </div>
            </div>
            <div className="hero-card">
              <div className="portrait alt">
                <Silhouette />
              </div>
              <div className="meta">
                <strong>Marco, 32</strong>
                <div className="muted">Milan · cooking, travel</div>
              </div>
            </div>
            <div className="hero-bubble">It’s a match! ♥</div>
          </div>
        </div>
      </section>
      <section className="features" aria-label="Why Heartline">
        {FEATURES.map((f) => (
          <article key={f.title} className="feature">
            <div className="feature-icon" aria-hidden="true">
              {f.icon}
            </div>
            <h3>{f.title}</h3>
            <p>{f.text}</p>
          </article>
        ))}
      </section>
    </AppShell>
  );
}
