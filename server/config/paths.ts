/** Paths into mon.toml and API bodies, such as `check[7].url`: a leaf module (no imports). */
export type Path = (string | number)[];
export type PathError = { path: Path; message: string };

/** `['expect', 0, 'status']` → `expect[0].status` */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}
