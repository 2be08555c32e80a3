import { describe, expect, it } from "vitest";
import { allowedNetworks, destinationRefusal } from "./destination";
import { webhookUrlSchema } from "./endpoint-schema";

const none = allowedNetworks("");

/** The refusal for a URL's host, as the schema and each delivery ask it. */
const refusalOf = (url: string, allowed = none) => destinationRefusal(new URL(url).hostname, allowed);

describe("destinationRefusal", () => {
  it.each([
    "http://localhost:8080/x",
    "http://LOCALHOST./x",
    "http://app.localhost/x",
    "http://127.0.0.1/x",
    "http://127.1/x",
    "http://2130706433/x", // decimal
    "http://0x7f000001/x", // hex
    "http://0177.0.0.1/x", // octal
    "http://0.0.0.0/x",
    "http://0/x",
    "http://[::1]/x",
    "http://[::]/x",
    "http://[0:0:0:0:0:0:0:1]/x",
    "http://[::ffff:127.0.0.1]/x", // IPv4-mapped
    "http://[::ffff:10.0.0.1]/x",
    "http://[::127.0.0.1]/x", // IPv4-compatible
    "http://[64:ff9b::7f00:1]/x", // NAT64 of 127.0.0.1
    "http://[2002:a9fe:a9fe::]/x", // 6to4 of 169.254.169.254
    "http://169.254.169.254/latest/meta-data/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://metadata/x",
    "http://10.1.2.3/x",
    "http://172.16.0.1/x",
    "http://172.31.255.255/x",
    "http://192.168.1.1/x",
    "http://100.64.0.1/x",
    "http://[fe80::1]/x", // link-local
    "http://[fd00:ec2::254]/x", // unique-local (a metadata address)
    "http://[fc00::1]/x",
    "http://224.0.0.1/x",
    "http://255.255.255.255/x",
  ])("refuses %s", (url) => {
    expect(refusalOf(url)).not.toBeNull();
  });

  it.each([
    "https://hooks.slack.com/services/T000/B000/XXXX",
    "https://example.com/hook",
    "http://93.184.216.34/x",
    "http://172.32.0.1/x",
    "http://[2606:4700::1111]/x",
    "http://[::ffff:93.184.216.34]/x",
  ])("accepts %s", (url) => {
    expect(refusalOf(url)).toBeNull();
  });

  it("accepts what WEBHOOK_ALLOWED_NETWORKS allows, in any spelling, and nothing beside it", () => {
    const loopback = allowedNetworks("127.0.0.0/8, ::1/128");
    for (const url of ["http://127.0.0.1/x", "http://2130706433/x", "http://[::ffff:127.0.0.1]/x", "http://[::1]/x"]) {
      expect(refusalOf(url, loopback), url).toBeNull();
    }
    expect(refusalOf("http://localhost/x", loopback)).toBeNull();
    expect(refusalOf("http://10.0.0.1/x", loopback)).not.toBeNull();
    expect(refusalOf("http://169.254.169.254/x", loopback)).not.toBeNull();
    expect(refusalOf("http://metadata.google.internal/x", loopback)).not.toBeNull();
    // Only IPv4 loopback allowed: "localhost" may also mean ::1, so it stays refused.
    expect(refusalOf("http://localhost/x", allowedNetworks("127.0.0.1"))).not.toBeNull();
    expect(refusalOf("http://10.2.3.4/x", allowedNetworks("10.2.0.0/16"))).toBeNull();
  });

  it.each(["10.0.0.0/33", "not-an-address", "10.0.0.0/8/1", "::1/129", "10.0.0.0/x"])(
    "refuses a bad WEBHOOK_ALLOWED_NETWORKS entry %j, naming the setting",
    (entry) => {
      expect(() => allowedNetworks(`127.0.0.1,${entry}`)).toThrow(/^WEBHOOK_ALLOWED_NETWORKS: /);
    },
  );
});

describe("webhookUrlSchema", () => {
  it("refuses an internal host in any spelling", () => {
    for (const url of ["http://2130706433/", "http://0x7f000001/", "http://[::ffff:127.0.0.1]/", "http://localhost/"]) {
      const parsed = webhookUrlSchema.safeParse(url);
      expect(parsed.success, url).toBe(false);
      expect(parsed.error?.issues[0]?.message).toMatch(/^must be a public address: /);
    }
    expect(webhookUrlSchema.safeParse("https://example.com/hook").success).toBe(true);
  });
});
