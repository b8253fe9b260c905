import type { MetaFunction } from "@remix-run/cloudflare";
import { LegalPage } from "~/components/legal";
import { AppLink } from "~/components/link";
import { titleMeta } from "~/lib/title";

export const meta: MetaFunction = () => titleMeta("Safety");

export default function SafetyPage() {
  return (
    <LegalPage
      title="Safety"
      lead="Dating should feel exciting, not risky. How Heartline protects you, and how to protect yourself."
    >
      <h2>What Heartline does</h2>
      <ul>
        <li>Every member confirms their email and must be 18 or older.</li>
        <li>Only people who both liked each other can chat freely.</li>
        <li>
          Block anyone from their profile or your conversation: from then on neither of you can see,
          find or message the other, and they are not told.
        </li>
        <li>
          Report a profile or a message from the ⋯ menu. Moderators review every report and can
          suspend accounts.
        </li>
      </ul>
      <h2>Chatting</h2>
      <ul>
        <li>Take your time and keep the conversation on Heartline until you feel sure.</li>
        <li>Never send money, gift cards or bank details to someone you have not met.</li>
        <li>
          Be wary of anyone who avoids a video call, rushes you, or has a sad story that needs cash.
        </li>
        <li>Don&apos;t share your address, workplace or financial information early on.</li>
      </ul>
      <h2>Meeting for the first time</h2>
      <ul>
        <li>Meet in a busy public place, and get there and back on your own.</li>
        <li>Tell a friend where you are going, with whom, and when you expect to be home.</li>
        <li>Stay in control of your drink and your phone; leave whenever you want to.</li>
      </ul>
      <h2>If something is wrong</h2>
      <p>
        If you are in danger, call your local emergency number first. Then report the member on
        Heartline so that it cannot happen to someone else, or{" "}
        <AppLink to="/contact">write to our safety team</AppLink>.
      </p>
    </LegalPage>
  );
}
