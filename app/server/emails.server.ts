import type { Email } from "./mail.server";

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function layout(title: string, body: string, action: { label: string; url: string }, footer = "") {
  return `<!doctype html><html><body style="margin:0;background:#f6f3f5;font-family:system-ui,sans-serif;color:#1d1720">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:32px 12px">
<table role="presentation" width="100%" style="max-width:520px;background:#fff;border-radius:16px;padding:32px">
<tr><td><p style="font-size:20px;font-weight:700;color:#e11d63;margin:0 0 24px">&#9829; Heartline</p>
<h1 style="font-size:22px;margin:0 0 16px">${escape(title)}</h1>${body}
<p style="margin:28px 0"><a href="${escape(action.url)}" style="background:#e11d63;color:#fff;padding:12px 22px;border-radius:999px;text-decoration:none;font-weight:600">${escape(action.label)}</a></p>
<p style="font-size:13px;color:#6b6070">If the button does not work, open this link: <br><a href="${escape(action.url)}" style="color:#e11d63;word-break:break-all">${escape(action.url)}</a></p>${footer}
</td></tr></table></td></tr></table></body></html>`;
}

export function verificationEmail(to: string, name: string, url: string): Email {
  return {
    to,
    subject: "Verify your email address",
    text: `Hi ${name},\n\nWelcome to Heartline. Confirm your email address to start meeting people:\n\n${url}\n\nThe link expires in 60 minutes. If you did not create an account, ignore this email.`,
    html: layout(
      "Verify your email address",
      `<p>Hi ${escape(name)}, welcome to Heartline. Confirm your email address to start meeting people. The link expires in 60 minutes.</p>`,
      { label: "Verify email address", url },
    ),
  };
}

export function passwordResetEmail(to: string, name: string, url: string): Email {
  return {
    to,
    subject: "Reset your password",
    text: `Hi ${name},\n\nSomeone asked to reset the password of your Heartline account. Choose a new password here:\n\n${url}\n\nThe link works once and expires in 60 minutes. If it was not you, ignore this email: your password stays as it is.`,
    html: layout(
      "Reset your password",
      `<p>Hi ${escape(name)}, someone asked to reset the password of your Heartline account. The link works once and expires in 60 minutes. If it was not you, ignore this email.</p>`,
      { label: "Choose a new password", url },
    ),
  };
}

export function passwordChangedEmail(to: string, name: string, url: string): Email {
  return {
    to,
    subject: "Your password was changed",
    text: `Hi ${name},\n\nThe password of your Heartline account was just changed and your other sessions were signed out. If this was not you, reset your password now:\n\n${url}`,
    html: layout(
      "Your password was changed",
      `<p>Hi ${escape(name)}, the password of your Heartline account was just changed and your other sessions were signed out. If this was not you, reset your password now.</p>`,
      { label: "Reset password", url },
    ),
  };
}

/**
 * To an address that asked for a reset link but has no active account: the same request then
 * sends an email either way, so its answer and timing say nothing about who is a member.
 */
export function passwordResetNoAccountEmail(to: string, url: string): Email {
  return {
    to,
    subject: "Reset your password",
    text: `Hello,\n\nSomeone asked to reset the password of a Heartline account for this email address, but no active account uses it, so no password was changed. If it was you, you can create an account here:\n\n${url}\n\nIf it was not you, ignore this email.`,
    html: layout(
      "Reset your password",
      "<p>Hello, someone asked to reset the password of a Heartline account for this email address, but no active account uses it, so no password was changed. If it was not you, ignore this email.</p>",
      { label: "Create an account", url },
    ),
  };
}

/**
 * A moderator decided the member's photo verification (an account email: always sent, whatever
 * the notification switches; docs/decisions/049). `reason` is what a rejection says, in plain
 * words.
 */
export function verificationDecisionEmail(
  to: string,
  name: string,
  decision: { verified: true } | { verified: false; reason: string },
  url: string,
): Email {
  if (decision.verified) {
    return {
      to,
      subject: "Your photos are verified",
      text: `Hi ${name},

A moderator compared your selfie with the photos on your profile: your profile is verified, and your cards and profile now show the badge. Your selfie has been deleted.

See your verification: ${url}`,
      html: layout(
        "Your photos are verified",
        `<p>Hi ${escape(name)}, a moderator compared your selfie with the photos on your profile: your profile is verified, and your cards and profile now show the badge. Your selfie has been deleted.</p>`,
        { label: "See your verification", url },
      ),
    };
  }
  return {
    to,
    subject: "Your photo verification was not accepted",
    text: `Hi ${name},

A moderator looked at your selfie and could not verify your profile. ${decision.reason}

Your selfie has been deleted. You can try again with a new pose: ${url}`,
    html: layout(
      "Your photo verification was not accepted",
      `<p>Hi ${escape(name)}, a moderator looked at your selfie and could not verify your profile. ${escape(decision.reason)}</p><p>Your selfie has been deleted. You can try again with a new pose.</p>`,
      { label: "Try again", url },
    ),
  };
}

/**
 * A moderator decided the member's appeal of a measure (hidden from search, or suspended): an
 * account email, always sent (docs/decisions/049).
 */
export function appealDecisionEmail(
  to: string,
  name: string,
  appeal: { measure: "hidden" | "suspended"; granted: boolean },
  url: string,
): Email {
  const outcome = appeal.granted
    ? appeal.measure === "suspended"
      ? "We granted your appeal: your account is active again, and you can sign in."
      : "We granted your appeal: the reports were dismissed and your profile is back in search."
    : appeal.measure === "suspended"
      ? "We reviewed your appeal and your account stays suspended. This decision is final."
      : "We reviewed your appeal and your profile stays hidden from search. This decision is final.";
  const subject = appeal.granted ? "Your appeal was granted" : "Your appeal was turned down";
  return {
    to,
    subject,
    text: `Hi ${name},

${outcome}

See the decision: ${url}`,
    html: layout(subject, `<p>Hi ${escape(name)},</p><p>${escape(outcome)}</p>`, {
      label: "See the decision",
      url,
    }),
  };
}

/** One line of a digest: what happened, and the page that shows it. */
export interface DigestLine {
  text: string;
  url: string;
}

/**
 * The email digest of a member who was away (digest.server.ts). A notification email: it carries
 * RFC 8058's one-click unsubscribe (`List-Unsubscribe` with an https URL and
 * `List-Unsubscribe-Post`), and the same link in its footer, which works without signing in.
 */
export function digestEmail(input: {
  to: string;
  name: string;
  lines: DigestLine[];
  openUrl: string;
  settingsUrl: string;
  unsubscribeUrl: string;
}): Email {
  const { lines } = input;
  const subject =
    lines.length === 1
      ? `While you were away: ${lines[0]!.text}`
      : "While you were away on Heartline";
  const footerText = `You get this digest because email notifications are on for your account. Stop these emails: ${input.unsubscribeUrl}\nChoose what you hear of: ${input.settingsUrl}`;
  const footerHtml = `<p style="font-size:12px;color:#6b6070;margin-top:24px">You get this digest because email notifications are on for your account. <a href="${escape(input.unsubscribeUrl)}" style="color:#6b6070">Stop these emails</a> or <a href="${escape(input.settingsUrl)}" style="color:#6b6070">choose what you hear of</a>.</p>`;
  return {
    to: input.to,
    subject,
    text: `Hi ${input.name},\n\nWhile you were away:\n\n${lines.map((l) => `- ${l.text}: ${l.url}`).join("\n")}\n\nOpen Heartline: ${input.openUrl}\n\n${footerText}`,
    html: layout(
      "While you were away",
      `<p>Hi ${escape(input.name)}, here is what happened:</p><ul style="padding-left:20px;line-height:1.6">${lines
        .map(
          (l) => `<li><a href="${escape(l.url)}" style="color:#1d1720">${escape(l.text)}</a></li>`,
        )
        .join("")}</ul>`,
      { label: "Open Heartline", url: input.openUrl },
      footerHtml,
    ),
    headers: {
      "List-Unsubscribe": `<${input.unsubscribeUrl}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    },
  };
}
