// @review-console/consumer: the runtime a worker embeds. Transports are entry points of their
// own (`@review-console/consumer/redis`, `/rabbitmq`, `/nats`), so a worker loads only its
// broker's client.
export { createConsumer, type Consumer, type ConsumerOptions } from "./consumer.ts";
export { CRASH_ENV, CRASH_MARKER, CRASH_POINTS, type CrashPoint } from "./crash-hook.ts";
export type * from "./desk.ts";
export * from "./errors.ts";
export { DeskRequestError, httpDesk, type HttpDeskOptions } from "./http-desk.ts";
export { jsonLogger, type ConsumerLogger } from "./logger.ts";
export {
  guardedMetrics,
  noMetrics,
  type ConsumerMetrics,
  type HandledOutcome,
  type PendingSource,
} from "./metrics-hook.ts";
export { ReplayWorker, type ReplayOptions } from "./replays.ts";
export { storableMessage, type HeldOutcome } from "./review.ts";
export { ConsumerRuntime, failureCheck, type ProcessOptions, type RuntimeOptions } from "./runtime.ts";
export type { BatchOptions } from "./batcher.ts";
export { sleep } from "./sleep.ts";
export { closeConsumerPool, consumerPool } from "./store.ts";
export { READ_ONLY_SQLSTATE, verifyPrimary } from "./pipeline.ts";
export * from "./types.ts";
