/**
 * The root of the chutebox package, found from this module both as source (`emulator/`) and as
 * bundle (`dist/`), which sit at the same depth: so it stays directly in `emulator/`.
 */
export const PACKAGE_ROOT = new URL('../', import.meta.url);
