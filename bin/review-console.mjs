#!/usr/bin/env node
// The CLI is TypeScript; tsx (a runtime dependency) loads it without a build step.
import { register } from "tsx/esm/api";

register();
await import("../cli/main.ts");
