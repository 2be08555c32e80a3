import { defineConfig } from "@playwright/test";

// Debian's Chromium: nothing is downloaded (`npx playwright install` is never run here).
export const chromiumLaunch = {
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
};

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 180_000,
  reporter: [["list"], ["json", { outputFile: "test-reports/playwright.json" }]],
  use: {
    browserName: "chromium",
    launchOptions: chromiumLaunch,
    viewport: { width: 1280, height: 720 },
  },
});
