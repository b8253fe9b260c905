import type { MetaFunction } from "@remix-run/cloudflare";
import { LegalPage } from "~/components/legal";
import { AppLink } from "~/components/link";
import { titleMeta } from "~/lib/title";

export const meta: MetaFunction = () => titleMeta("Terms");

export default function TermsPage() {
  return (
    <LegalPage
      title="Terms of use"
      updated="23 November 2026"
      lead="The agreement between you and Heartline when you use the app. Plain words, no tricks."
    >
      <h2>Who can join</h2>
      <p>
        Heartline is for adults. You must be at least 18 years old, and old enough to agree to these
        terms where you live. You may hold one account, for yourself, and you may not join if we
        have removed you before or if the law forbids you from using a dating service.
      </p>
      <h2>Your account</h2>
      <ul>
        <li>Tell the truth about yourself: your age, your photos and who you are.</li>
        <li>
          Keep your password to yourself; you are responsible for what happens in your account.
        </li>
        <li>
          You can delete your account at any time in Settings. Your profile, photos and messages are
          then removed, as our <AppLink to="/privacy">privacy policy</AppLink> describes.
        </li>
      </ul>
      <h2>How to treat other members</h2>
      <p>Be kind and honest. On Heartline you may not:</p>
      <ul>
        <li>harass, threaten, shame or stalk anyone, or keep contacting someone who said no;</li>
        <li>post nudity, sexual content involving anyone under 18, violence or hate;</li>
        <li>pretend to be someone else, or use photos that are not of you;</li>
        <li>ask for money, promote a business, or send spam or links to scams;</li>
        <li>share another member&apos;s private information or messages without consent.</li>
      </ul>
      <p>
        Members can report and block each other. Our moderators review every report and may remove
        content, suspend or close accounts that break these rules. The{" "}
        <AppLink to="/safety">safety page</AppLink> explains how.
      </p>
      <h2>Credits, gifts and subscriptions</h2>
      <p>
        Some features are paid. Prices are shown before you pay, payments are handled by our payment
        provider, and a subscription renews until you cancel it in the app. Credits have no cash
        value and cannot be transferred. Where the law gives you a right to withdraw or a refund,
        you keep it.
      </p>
      <h2>Meeting in person</h2>
      <p>
        Heartline does not run background checks on its members and cannot promise how anyone will
        behave. You are responsible for your own interactions; please read our safety advice before
        you meet someone.
      </p>
      <h2>Changes and contact</h2>
      <p>
        If we change these terms in a way that matters, we tell you in the app before the change
        applies. Questions: <AppLink to="/contact">contact us</AppLink>.
      </p>
    </LegalPage>
  );
}
