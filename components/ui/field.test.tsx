import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { Field, Input } from "./field";

describe("Field", () => {
  it("labels its control and points the control at its hint", () => {
    render(
      <Field label="Reason" htmlFor="reason" hint="Why, for the decision log">
        <Input id="reason" aria-describedby="reason-hint" />
      </Field>,
    );
    const input = screen.getByLabelText("Reason");
    expect(input).toHaveAccessibleDescription("Why, for the decision log");
  });
});
