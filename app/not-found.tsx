import Link from "next/link";

// The answer to a path no page takes (404). Our own rather than Next's default, which styles
// itself with an inline <style> element that the pages' Content-Security-Policy (style elements
// only with the request's nonce, see proxy.ts) refuses.
export default function NotFound() {
  return (
    <main>
      <h1>Page not found</h1>
      <p>There is no page at this address; the link may be mistyped.</p>
      <p>
        <Link href="/reviews">Go to the review queue</Link>
      </p>
    </main>
  );
}
