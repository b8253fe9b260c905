import { useNow } from "~/state/clock";
import type {
  HeadersFunction,
  LinksFunction,
  LoaderFunctionArgs,
  MetaFunction,
} from "@remix-run/cloudflare";
import { TimeAgo } from "~/components/time-ago";
import { json } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useEffect } from "react";
import { FormAlert } from "~/components/form";
import { EmptyState } from "~/components/empty-state";
import { AppLink } from "~/components/link";
import { Chips, ProfileFacts, MemberRow, PhotoGallery } from "~/components/profile/member";
import { PromptAnswers } from "~/components/profile/prompt-answers";
import { AppShell } from "~/components/shell";
import { ageOn } from "~/lib/age";
import { displayName } from "~/lib/members";
import { promptsForCard } from "~/schemas/prompt-catalog";
import { titleMeta } from "~/lib/title";
import profileStyles from "~/styles/profile.css?url";
import type { Profile } from "~/schemas/profile";
import { requireUser } from "~/server/guards.server";
import { listProfileViewers } from "~/server/profile-views.server";
import { loadProfile } from "~/server/profiles.server";
import { usePresenceWatch } from "~/realtime/use-presence-watch";
import { useAtom, useAtomValue, useHydrateAtoms, useSetAtom } from "~/state/jotai";
import {
  fetchSuccess,
  fetchViewersAtom,
  initialProfileState,
  initialViewersState,
  profileStateAtom,
  viewersFetchSuccess,
  viewersStateAtom,
} from "~/state/profile";

export const meta: MetaFunction = () => titleMeta("My Profile");
export const links: LinksFunction = () => [{ rel: "stylesheet", href: profileStyles }];

/** Personal pages: never stored by a shared cache or kept for the back button. */
export const headers: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/**
 * The member's own profile and who viewed it. The page is open before email verification; the
 * viewers need a verified email (docs/api.md "Access levels"), so they are left out until then.
 */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const { user } = requireUser(context, request);
  const [profile, viewers] = await Promise.all([
    loadProfile(context.env, user.id),
    user.emailVerifiedAt ? listProfileViewers(context.env, user.id) : Promise.resolve(null),
  ]);
  return json({ profile, viewers }, { headers: { "Cache-Control": "private, no-store" } });
}

/** What is still missing from a profile, so the page can nudge the member to finish it. */
function missingParts(p: Profile): string[] {
  const missing: string[] = [];
  if (p.photos.length === 0) missing.push("a photo");
  if (!p.bio.trim()) missing.push("a bio");
  if (p.interests.length === 0) missing.push("your interests");
  if (p.preferences.length === 0) missing.push("what you are looking for");
  if (!p.location) missing.push("your location");
  if (!p.firstName) missing.push("your first name");
  return missing;
}

export default function MyProfilePage() {
  const loaded = useLoaderData<typeof loader>();
  const now = useNow();
  useHydrateAtoms([
    [profileStateAtom, fetchSuccess(initialProfileState, loaded.profile, 0)],
    [
      viewersStateAtom,
      loaded.viewers
        ? viewersFetchSuccess(initialViewersState, loaded.viewers)
        : initialViewersState,
    ],
  ]);
  const [state, setState] = useAtom(profileStateAtom);
  const viewers = useAtomValue(viewersStateAtom);
  usePresenceWatch(viewers.viewers.map((v) => v.id));
  const setViewers = useSetAtom(viewersStateAtom);
  const fetchViewers = useSetAtom(fetchViewersAtom);

  useEffect(() => {
    setState((s) => fetchSuccess(s, loaded.profile));
    if (loaded.viewers) setViewers(viewersFetchSuccess(initialViewersState, loaded.viewers));
  }, [loaded, setState, setViewers]);

  const profile = state.data ?? loaded.profile;
  const name = displayName(profile);
  const place = profile.location
    ? [profile.location.city?.name, profile.location.state?.name, profile.location.country.name]
        .filter(Boolean)
        .join(", ")
    : null;
  const missing = missingParts(profile);
  const total = 6;
  const complete = Math.round(((total - missing.length) / total) * 100);
  const verified = Boolean(profile.email_verified_at);

  return (
    <AppShell>
      <div className="container">
        <div className="page-head">
          <div>
            <h1>My profile</h1>
            <p className="muted">This is how other members see you.</p>
          </div>
          <div className="page-actions">
            {verified ? (
              <AppLink
                to={`/members/${encodeURIComponent(profile.username)}`}
                className="btn btn-secondary"
              >
                Preview public profile
              </AppLink>
            ) : null}
            {verified ? (
              <AppLink to="/my/verification" className="btn btn-secondary">
                Verify your photos
              </AppLink>
            ) : null}
            <AppLink to="/settings/profile" className="btn btn-primary">
              Edit profile
            </AppLink>
          </div>
        </div>

        {missing.length > 0 ? (
          <section className="card completeness" aria-label="Profile completeness">
            <div className="completeness-head">
              <strong>Your profile is {complete}% complete</strong>
              <AppLink to="/settings/profile">Finish it</AppLink>
            </div>
            <div
              className="meter"
              role="progressbar"
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={complete}
              aria-label="Profile completeness"
            >
              <span style={{ width: `${complete}%` }} />
            </div>
            <p className="muted small">Add {missing.join(", ")} to get noticed.</p>
          </section>
        ) : null}

        <div className="profile-layout">
          <div className="profile-media">
            <PhotoGallery photos={profile.photos} name={name} />
          </div>
          <div className="profile-info">
            <section className="card profile-summary">
              <h2 className="profile-name">
                {name}, {ageOn(profile.dateOfBirth, new Date(now))}
              </h2>
              <p className="muted">@{profile.username}</p>
              <ProfileFacts place={place} gender={profile.gender} ageRange={profile.ageRange} />
            </section>
            <section className="card">
              <h3>About me</h3>
              {profile.bio ? (
                <p className="bio">{profile.bio}</p>
              ) : (
                <p className="muted">Tell members a little about yourself.</p>
              )}
              <h3>In my words</h3>
              {profile.prompts.length > 0 ? (
                <PromptAnswers prompts={promptsForCard(profile.prompts)} />
              ) : (
                <p className="muted">
                  Answer a prompt or two in your{" "}
                  <AppLink to="/settings/profile">profile settings</AppLink>: they give members
                  something to like.
                </p>
              )}
              <h3>Interests</h3>
              <Chips items={profile.interests} tone="brand" />
              <h3>Looking for</h3>
              <Chips items={profile.preferences} />
            </section>
          </div>
        </div>

        <section className="card viewers" aria-labelledby="viewers-heading">
          <div className="card-head">
            <div>
              <h2 id="viewers-heading">Who viewed you</h2>
              <p className="muted">Members who looked at your profile, most recent first.</p>
            </div>
            {verified ? (
              <span className="pill" data-testid="viewers-total">
                {`${viewers.total_count} ${viewers.total_count === 1 ? "viewer" : "viewers"}`}
              </span>
            ) : null}
          </div>
          {!verified ? (
            <FormAlert
              tone="warning"
              message="Verify your email address to see who viewed your profile."
            />
          ) : viewers.viewers.length === 0 && !viewers.isLoading ? (
            <EmptyState
              className="empty-state"
              actions={[{ to: "/settings/profile", label: "Improve your profile" }]}
            >
              <p>No views yet. A great main photo and a few interests help members find you.</p>
            </EmptyState>
          ) : (
            <ul className="member-list">
              {viewers.viewers.map((viewer) => (
                <li key={viewer.id}>
                  <MemberRow
                    member={viewer}
                    meta={<TimeAgo iso={viewer.viewed_at} prefix="Viewed " />}
                  />
                </li>
              ))}
            </ul>
          )}
          {viewers.error ? <FormAlert message={viewers.error} /> : null}
          {verified && viewers.hasMore ? (
            <div className="load-more">
              <button
                type="button"
                className="btn btn-secondary"
                disabled={viewers.isLoading}
                onClick={() => void fetchViewers(viewers.page + 1)}
              >
                {viewers.isLoading ? "Loading…" : "Show more"}
              </button>
            </div>
          ) : null}
        </section>
      </div>
    </AppShell>
  );
}
