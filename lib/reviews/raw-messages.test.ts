import { arrayElements, objectMembers, sliceSpan } from "@review-console/contract";
import { describe, expect, it } from "vitest";
import { rawMessageOf, rawMessagesOfRecords } from "./raw-messages";

// The one-pass finder must give exactly what the contract's general functions give (the texts
// intake stored before it), on every shape a client can send that JSON.parse accepts.

function viaContract(text: string): (string | undefined)[] {
  const span = objectMembers(text, 0).get("records");
  const elements = span ? arrayElements(text, span[0]) : [];
  return elements.map((element) => sliceSpan(text, objectMembers(text, element[0]).get("message")));
}

const messages = [
  `{"id":"m-1","payload":{"n":12345678901234567890123,"2":"two","1":"one"}}`,
  `{ "id" : "m-2" ,\n\t"payload" : [ 1 , 2 , { "a" : "]}{[" } ] }`,
  `"just a string with \\"quotes\\" and \\\\ a backslash"`,
  `{"quote":"\\"","backslashes":"\\\\\\\\","unicode":"\\u00e9\\ud83d\\ude00 é 😀","nul":"\\u0000"}`,
  `[]`,
  `{}`,
  `null`,
  `-1.5e10`,
  `true`,
  `{"nested":{"deeper":{"deepest":[[[["x"]]]]}}}`,
];

const bodies: string[] = [
  `{"records":[${messages.map((m) => `{"category":"manual-review","message":${m}}`).join(",")}]}`,
  // White space everywhere JSON allows it.
  ` \n{ "records" : [\n ${messages.map((m) => `{ "message" : ${m} , "reason" : "r" }`).join(" ,\n ")} \n] \n} `,
  // A repeated key: JSON.parse keeps the last, and so must the raw text.
  `{"records":[{"message":{"first":true},"message":{"second":true}}]}`,
  `{"records":[{"message":1}],"records":[{"message":2},{"message":3}]}`,
  // An escaped key that reads as "message" or "records".
  `{"rec\\u006frds":[{"mess\\u0061ge":{"escaped":"key"}}]}`,
  // Keys that only look alike, and an element without a message.
  `{"records":[{"messages":1,"Message":2},{"message":"m"},{}]}`,
  // Elements that are no objects.
  `{"records":[1,"two",null,[{"message":"inside an array"}],{"message":true}]}`,
  `{"records":[]}`,
  `{"records":{"message":"not an array"}}`,
  `{"records":"[{\\"message\\":1}]"}`,
  `{"other":[{"message":1}]}`,
  `[{"message":1}]`,
  `{"before":"}]\\"","records":[{"before":"\\\\","message":{"k":"\\\\\\""}}],"after":{"records":[]}}`,
];

describe("rawMessagesOfRecords", () => {
  it.each(bodies.map((body, i) => [i, body]))("body %i: the contract's spans", (_, body) => {
    JSON.parse(body); // every body is JSON the intake would have accepted
    expect(rawMessagesOfRecords(body)).toEqual(viaContract(body));
  });

  it("gives the message texts byte for byte, in order", () => {
    expect(rawMessagesOfRecords(bodies[0]!)).toEqual(messages);
    expect(rawMessagesOfRecords(bodies[1]!)).toEqual(messages);
  });

  it("agrees on generated batches of every kind of value", () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pieces = ['"a"', '"\\""', '"\\\\"', '"}"', '"]"', '"\\u0022"', "1", "-0.5", "null", "[]", "{}", '"é"'];
    const value = (depth: number): string => {
      const roll = random();
      if (depth > 3 || roll < 0.4) return pieces[Math.floor(random() * pieces.length)]!;
      if (roll < 0.7) return `[${Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1)).join(", ")}]`;
      const keys = ["message", "records", "m\\u0065ssage", "x", '\\"'];
      return `{${Array.from(
        { length: Math.floor(random() * 4) },
        () => `"${keys[Math.floor(random() * keys.length)]}" : ${value(depth + 1)}`,
      ).join(",")}}`;
    };
    for (let i = 0; i < 300; i++) {
      const body = `{"records":[${Array.from({ length: 1 + Math.floor(random() * 5) }, () => value(0)).join(",")}]}`;
      JSON.parse(body);
      expect(rawMessagesOfRecords(body)).toEqual(viaContract(body));
    }
  });
});

describe("rawMessageOf", () => {
  it.each(messages.map((m, i) => [i, m]))("message %i of a single report", (_, message) => {
    const body = `{ "category" : "manual-review", "message" : ${message} , "reason":"r"}`;
    expect(rawMessageOf(body)).toBe(message);
    expect(rawMessageOf(body)).toBe(sliceSpan(body, objectMembers(body, 0).get("message")));
  });

  it("keeps the last of a repeated message, and finds none where there is none", () => {
    expect(rawMessageOf(`{"message":1,"message":{"b":2}}`)).toBe(`{"b":2}`);
    expect(rawMessageOf(`{"mess\\u0061ge":[1]}`)).toBe("[1]");
    expect(rawMessageOf(`{"reason":"message"}`)).toBeUndefined();
    expect(rawMessageOf(`["message"]`)).toBeUndefined();
    expect(rawMessageOf(`"message"`)).toBeUndefined();
  });
});
