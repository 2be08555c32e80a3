import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { Field, Input, Textarea } from "./field";

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

  it("wires label, description and errors itself when its children are a function", () => {
    const { rerender } = render(
      <Field label="Reason" htmlFor="why" description="For the decision log" errors={undefined}>
        {(control) => <Textarea {...control} />}
      </Field>,
    );
    const control = screen.getByLabelText("Reason");
    expect(control).toHaveAttribute("id", "why");
    expect(control).toHaveAccessibleDescription("For the decision log");
    expect(control).not.toHaveAttribute("aria-invalid");

    rerender(
      <Field label="Reason" htmlFor="why" description="For the decision log" errors={["must not be empty"]}>
        {(control) => <Textarea {...control} />}
      </Field>,
    );
    expect(screen.getByLabelText("Reason")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText("Reason")).toHaveAccessibleDescription("For the decision log must not be empty");
  });

  it("without a hint, a wired control is described by its errors only, and by nothing when there are none", () => {
    const { rerender } = render(
      <Field label="Name" htmlFor="name" errors={[]}>
        {(control) => <Input {...control} />}
      </Field>,
    );
    expect(screen.getByLabelText("Name")).not.toHaveAttribute("aria-describedby");
    rerender(
      <Field label="Name" htmlFor="name" errors={["is taken", "is too long"]}>
        {(control) => <Input {...control} />}
      </Field>,
    );
    expect(screen.getByLabelText("Name")).toHaveAccessibleDescription("is taken is too long");
  });
});
