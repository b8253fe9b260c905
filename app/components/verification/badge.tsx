/**
 * The verified badge: a moderator matched the member's selfie with their profile photos. Named for
 * assistive technology; its title says what it means to a pointer.
 */
export function VerifiedBadge({ verified }: { verified: boolean }) {
  if (!verified) return null;
  return (
    <span
      className="verified-badge"
      role="img"
      aria-label="Verified photos"
      title="Verified: a moderator matched a live selfie with this member's photos"
      data-testid="verified-badge"
    >
      <svg width="16" height="16" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
        <path
          d="M12 2l2.4 2.1 3.2-.3.9 3.1 2.8 1.6-1.1 3 1.1 3-2.8 1.6-.9 3.1-3.2-.3L12 22l-2.4-2.1-3.2.3-.9-3.1-2.8-1.6 1.1-3-1.1-3 2.8-1.6.9-3.1 3.2.3Z"
          fill="currentColor"
        />
        <path
          d="m8 12.2 2.7 2.7L16.2 9.4"
          fill="none"
          stroke="#fff"
          strokeWidth="2"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
      </svg>
    </span>
  );
}
