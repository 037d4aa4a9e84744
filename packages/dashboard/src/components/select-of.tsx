interface SelectOfProps<T extends string> {
  /** The choices, in order. */
  values: readonly T[];
  /** What a choice shows, where it is not the value itself (`{ '': 'Any' }`). */
  labels?: Partial<Record<T, string>>;
  // the choices alone decide T: a setter of a wider type must not widen it
  value: NoInfer<T>;
  onChange(value: NoInfer<T>): void;
  disabled?: boolean;
}

/** A <select> of a closed list of values, whose change hands back one of them (no cast at the caller). */
export function SelectOf<T extends string>({ values, labels, value, onChange, disabled }: SelectOfProps<T>) {
  return (
    <select
      value={value}
      disabled={disabled}
      onChange={(e) => onChange(values.find((v) => v === e.target.value) ?? value)}
    >
      {values.map((v) => (
        <option key={v} value={v}>
          {labels?.[v] ?? v}
        </option>
      ))}
    </select>
  );
}
