import type { PoseId } from "~/schemas/verification";

/**
 * The poses of photo verification, drawn: a head and shoulders in outline, and the hand the pose
 * asks for. Decorative next to the written instruction, which says the same.
 */
const HANDS: Record<PoseId, string> = {
  // Two raised fingers beside the right cheek.
  peace: "M84 96v-22m0 22h14v-18m-14 8-6-26m20 18 6-24M84 96c0 8 14 8 14 0",
  // A fist under the chin with the thumb up.
  thumbs_up: "M52 112h22v16H52zm6 0v-18c0-6 8-6 8 0v18",
  // A flat hand resting on top of the head.
  hand_on_head: "M40 26c10-8 30-8 40 0l10 2",
  // One finger pointing up beside the cheek.
  point_up: "M88 100h14v18H88zm4 0V66c0-4 6-4 6 0v34",
  // An open hand, fingers spread, beside the face.
  wave: "M86 108V84m6 24V78m6 30V80m6 28V86m-24 22c0 10 26 10 26 0m-32-10 6 10",
};

export function PoseDrawing({ pose, size = 160 }: { pose: PoseId; size?: number }) {
  return (
    <svg
      className="pose-drawing"
      width={size}
      height={size}
      viewBox="0 0 128 160"
      aria-hidden="true"
      focusable="false"
      data-pose={pose}
    >
      <g
        fill="none"
        stroke="currentColor"
        strokeWidth="3"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        <ellipse cx="60" cy="62" rx="26" ry="32" />
        <path d="M50 58h.01M70 58h.01M52 76c5 4 11 4 16 0" />
        <path d="M24 160c0-28 16-44 36-44s36 16 36 44" />
      </g>
      <path
        d={HANDS[pose]}
        fill="none"
        stroke="var(--accent, #d6336c)"
        strokeWidth="4"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}
