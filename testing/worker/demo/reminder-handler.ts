import http from "node:http";
import type { Envelope } from "@review-console/contract";
import {
  EffectOutcomeUnknownError,
  PermanentFailure,
  TemporaryFailure,
  type ExternalHandler,
} from "@review-console/consumer";

// The handler of `invoice.reminder` used by the demo and the tests: one email per reminder,
// sent through the fake provider's API with the envelope's effectKey as the Idempotency-Key.
// It shows the one judgement a handler must make: did the provider certainly not act
// (TemporaryFailure / PermanentFailure), or may it have acted (EffectOutcomeUnknownError)?

// Node 20's default agent closes idle sockets itself; a keep-alive agent saves a TCP handshake per
// email. The provider keeps idle connections longer than this agent does (see fake-email-provider).
const agent = new http.Agent({ keepAlive: true, maxSockets: 32, timeout: 60_000 });

/** Errors that prove the request never reached the provider. */
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

function post(url: URL, key: string, body: string, signal: AbortSignal): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    let written = false;
    const req = http.request(
      url,
      {
        method: "POST",
        agent,
        signal,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "idempotency-key": key,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", (error) => reject(new EffectOutcomeUnknownError(`answer broken off: ${error.message}`)));
      },
    );
    req.on("finish", () => (written = true));
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (!written && error.code !== undefined && NOT_SENT.has(error.code)) {
        reject(new TemporaryFailure("dependency-not-ready", `email provider unreachable: ${error.code}`));
      } else {
        // Sent, or perhaps sent: only the provider knows now.
        reject(new EffectOutcomeUnknownError(`no answer from the email provider: ${error.code ?? error.message}`));
      }
    });
    req.end(body);
  });
}

export function reminderEmail(envelope: Envelope) {
  const invoiceId = String(envelope.payload.invoiceId);
  return {
    to: `billing+${invoiceId}@customer.example`,
    subject: `Reminder: invoice ${invoiceId} is due`,
    text: `This is reminder ${envelope.sequence} for invoice ${invoiceId}.`,
    metadata: { messageId: envelope.id, sequenceKey: envelope.sequenceKey, sequence: envelope.sequence },
  };
}

/** An external handler that sends each reminder through the email provider at `providerUrl`. */
export function emailReminderHandler(providerUrl: string): ExternalHandler {
  const endpoint = new URL("/v1/emails", providerUrl);
  return {
    effect: "external",
    async execute({ envelope, effectKey, signal }) {
      const { status, text } = await post(endpoint, effectKey, JSON.stringify(reminderEmail(envelope)), signal);
      if (status >= 200 && status < 300) {
        const id = (JSON.parse(text) as { id?: unknown }).id;
        if (typeof id !== "string") throw new EffectOutcomeUnknownError(`provider answered ${status} without an id`);
        return { providerRef: id };
      }
      if (status === 503 || status === 429) {
        throw new TemporaryFailure("dependency-not-ready", `email provider answered ${status}: ${text.slice(0, 200)}`);
      }
      if (status >= 400 && status < 500 && status !== 408 && status !== 409) {
        throw new PermanentFailure("provider-rejected", `email provider answered ${status}: ${text.slice(0, 200)}`);
      }
      // A 5xx (or a 408/409) may come after the provider acted.
      throw new EffectOutcomeUnknownError(`email provider answered ${status}: ${text.slice(0, 200)}`);
    },
  };
}
