/** One figure with its label, in a row of `.stats`. */
export function Stat({ label, value, title }: { label: string; value: string; title?: string }) {
  return (
    <div className="stat" title={title}>
      <div className="label">{label}</div>
      <div className="value">{value}</div>
    </div>
  );
}
