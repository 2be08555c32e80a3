"use client";

import { Field, Select } from "@/components/ui/field";

/** The choice of one domain or of every domain ("" stands for every domain), labelled "Domain". */
export function DomainField({
  id,
  hint,
  domains,
  value,
  onChange,
}: {
  id: string;
  hint: string;
  domains: string[];
  value: string;
  onChange: (domain: string) => void;
}) {
  return (
    <Field label="Domain" htmlFor={id} hint={hint}>
      <Select id={id} aria-describedby={`${id}-hint`} value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">every domain</option>
        {domains.map((d) => (
          <option key={d} value={d}>
            {d}
          </option>
        ))}
      </Select>
    </Field>
  );
}
