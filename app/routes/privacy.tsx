import type { MetaFunction } from "@remix-run/cloudflare";
import { LegalPage } from "~/components/legal";
import { AppLink } from "~/components/link";
import { titleMeta } from "~/lib/title";

export const meta: MetaFunction = () => titleMeta("Privacy");

export default function PrivacyPage() {
  return (
    <LegalPage
      title="Privacy policy"
      updated="23 November 2026"
      lead="What Heartline keeps about you, why, who sees it, and how you stay in control."
    >
      <h2>What we keep</h2>
      <ul>
        <li>
          <strong>Your account:</strong> email, username, date of birth (to check you are 18 or
          older) and a salted hash of your password, never the password itself.
        </li>
        <li>
          <strong>Your profile:</strong> the name, photos, bio, interests, location and preferences
          you choose to share.
        </li>
        <li>
          <strong>What you do here:</strong> likes, matches, messages, gifts, profile views, blocks,
          reports and payments, so the app can work and stay safe.
        </li>
        <li>
          <strong>Technical data:</strong> your IP address and the time of requests, kept briefly to
          protect accounts from abuse.
        </li>
      </ul>
      <h2>Who sees what</h2>
      <p>
        Other members see your profile and photos, whether you are online, and the messages you send
        them. They never see your email or date of birth (only your age). Anyone you block, and
        anyone who blocks you, no longer sees you at all. Moderators see reported content to review
        it.
      </p>
      <h2>Who we share it with</h2>
      <p>
        We do not sell your data or use it for advertising. We share only what is needed with the
        services that run Heartline: our hosting provider, our email provider and our payment
        provider (which handles your card; we never see its number).
      </p>
      <h2>Your choices</h2>
      <ul>
        <li>Edit or remove your profile, photos and interests at any time in Settings.</li>
        <li>Choose which notifications you get, and whether others see when you are online.</li>
        <li>
          Delete your account in Settings: your profile, photos, likes and messages are removed,
          apart from what the law requires us to keep (such as payment records).
        </li>
      </ul>
      <h2>Questions</h2>
      <p>
        Ask us anything about your data, or ask for a copy of it, through the{" "}
        <AppLink to="/contact">contact page</AppLink>.
      </p>
    </LegalPage>
  );
}
