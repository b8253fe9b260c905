import type { MetaFunction } from "@remix-run/cloudflare";
import { LegalPage } from "~/components/legal";
import { AppLink } from "~/components/link";
import { titleMeta } from "~/lib/title";

export const meta: MetaFunction = () => titleMeta("Contact");

export default function ContactPage() {
  return (
    <LegalPage
      title="Contact us"
      lead="Real people read every message. We usually answer within one working day."
    >
      <div className="contact-grid">
        <section className="card">
          <h2>Help with your account</h2>
          <p>
            Sign-in trouble, a verification email that never came, or a question about credits or
            your subscription: <a href="mailto:support@heartline.app">support@heartline.app</a>
          </p>
        </section>
        <section className="card">
          <h2>Safety and reports</h2>
          <p>
            Something made you feel unsafe? Report it from the member&apos;s profile or the ⋯ menu
            in chat, or write to <a href="mailto:safety@heartline.app">safety@heartline.app</a>.
            Read our <AppLink to="/safety">safety advice</AppLink>.
          </p>
        </section>
        <section className="card">
          <h2>Privacy</h2>
          <p>
            A copy of your data, or a question about how we use it:{" "}
            <a href="mailto:privacy@heartline.app">privacy@heartline.app</a>
          </p>
        </section>
      </div>
    </LegalPage>
  );
}
