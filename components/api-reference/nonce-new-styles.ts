// The page's Content-Security-Policy admits a <style> element only with this request's nonce
// (lib/http/security-headers.ts), and Scalar adds <style> elements from script: its theme, and
// its toasts' styles when its module loads. While `nonceNewStyles` is in force, every <style>
// element the page's scripts create gets the nonce, so the policy keeps `style-src` without
// 'unsafe-inline' (which would also admit a <style> injected into the HTML). A script on the page
// could read the nonce anyway; no new capability is handed out.

/** Gives the nonce to every <style> element created from now on; returns what undoes it. */
export function nonceNewStyles(nonce: string | undefined): () => void {
  if (!nonce || typeof document === "undefined") return () => {};
  const original = Document.prototype.createElement;
  const createElement = function (this: Document, tagName: string, options?: ElementCreationOptions) {
    const element = original.call(this, tagName, options);
    if (element instanceof HTMLStyleElement) element.setAttribute("nonce", nonce);
    return element;
  };
  document.createElement = createElement as typeof document.createElement;
  return () => {
    // Back to the prototype's own method (the instance property shadowed it).
    if (document.createElement === createElement) delete (document as { createElement?: unknown }).createElement;
  };
}
