/** Any path no route claims is a 404, rendered by the root error boundary. */
export function loader() {
  throw new Response("Not Found", { status: 404 });
}

export default function NotFound() {
  return null;
}
