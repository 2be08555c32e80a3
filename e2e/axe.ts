import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/** Serious and critical violations on the whole page, one line each with the elements they were found on. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

/**
 * The page's width against the window's; when wider, the elements that stick out on the right
 * (outermost first, at most 8), so a failure names what to fix.
 */
export async function horizontalOverflow(page: Page) {
  return page.evaluate(() => {
    const scrollWidth = document.scrollingElement!.scrollWidth;
    const innerWidth = window.innerWidth;
    const culprits: string[] = [];
    if (scrollWidth > innerWidth) {
      for (const element of Array.from(document.body.querySelectorAll<HTMLElement>("*"))) {
        const right = element.getBoundingClientRect().right + window.scrollX;
        if (right <= innerWidth + 0.5) continue;
        // Inside a box on screen that scrolls or clips sideways: that box holds it.
        let held = false;
        for (let parent = element.parentElement; parent && !held; parent = parent.parentElement) {
          held =
            getComputedStyle(parent).overflowX !== "visible" &&
            parent.getBoundingClientRect().right + window.scrollX <= innerWidth + 0.5;
        }
        if (held) continue;
        const name = `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ""}.${element.className}`;
        culprits.push(`${name} (right ${Math.round(right)})`);
        if (culprits.length >= 8) break;
      }
    }
    return { scrollWidth, innerWidth, culprits };
  });
}

/** The page never scrolls sideways (soft: the test goes on and reports every page). */
export async function expectNoSidewaysScroll(page: Page, what: string) {
  const { scrollWidth, innerWidth, culprits } = await horizontalOverflow(page);
  expect
    .soft(scrollWidth, `${what}: the page is ${scrollWidth} px wide at ${innerWidth} px: ${culprits.join("; ")}`)
    .toBeLessThanOrEqual(innerWidth);
}
