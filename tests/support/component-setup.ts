// Component tests: jest-dom's matchers (toBeInTheDocument, toHaveAccessibleDescription, …) and
// a clean DOM after each test, since vitest does not run Testing Library's auto-cleanup itself.
import "@testing-library/jest-dom/vitest";
import { cleanup } from "@testing-library/react";
import { afterEach } from "vitest";

afterEach(() => cleanup());
